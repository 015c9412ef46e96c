#!/bin/sh
# A $BROWSER that tells what it was given: `record-browser.sh LOG CMD...`
# writes to LOG the descriptors it inherited (what each one is) and every
# CATALYST_* variable in its environment, then runs CMD... with the
# address (the tests pass `true`, or follow-redirect.sh to sign in).
set -eu
log=${1:?usage: record-browser.sh LOG CMD... URL}
shift
{
	echo "fds:"
	ls -l "/proc/$$/fd/"
	echo "env:"
	env | grep '^CATALYST_' || true
} >>"$log"
exec "$@"
