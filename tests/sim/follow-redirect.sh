#!/bin/sh
# The tests' "browser" ($BROWSER): given the authorization URL, it does
# what a user's browser does after they approve — follows the redirects
# (keeping cookies, as oidc-provider's interaction needs) until the last
# one lands on catalyst-audit's loopback callback. The test servers
# approve at once, so no page is ever shown. Loopback URLs only.
#
# FOLLOW_REDIRECT_TAMPER=state rewrites the state parameter of the final
# redirect, as a forged redirect would, so the tests can check that the
# client refuses it.
#
# FOLLOW_REDIRECT_FORGE=error first sends the client's callback a forged
# error redirect (access_denied, with a state of its own), as any local
# process or web page could, then signs in as usual: the tests check that
# the forgery does not end the sign-in.
set -eu
url=${1:?usage: follow-redirect.sh URL}
case "$url" in
http://127.0.0.1:* | http://localhost:* | http://\[::1\]:*) ;;
*)
	echo "follow-redirect: refusing a non-loopback URL" >&2
	exit 2
	;;
esac
opts="-sS --max-time 30 --proto =http -b /dev/null -c /dev/null -o /dev/null"
if [ "${FOLLOW_REDIRECT_FORGE:-}" = error ]; then
	# redirect_uri, form-encoded by the client: only ':' and '/' to undo
	cb=$(printf '%s' "$url" | sed -n 's/.*[?&]redirect_uri=\([^&]*\).*/\1/p' | sed -e 's/%3A/:/g' -e 's/%2F/\//g')
	case "$cb" in
	http://127.0.0.1:*) ;;
	*)
		echo "follow-redirect: no loopback redirect_uri in the URL" >&2
		exit 2
		;;
	esac
	code=$(curl -sS --max-time 10 --proto =http -o /dev/null -w '%{http_code}' \
		"$cb?error=access_denied&error_description=forged&state=forged-state" || true)
	echo "follow-redirect: the forged error redirect got HTTP $code" >&2
fi
if [ -z "${FOLLOW_REDIRECT_TAMPER:-}" ]; then
	# shellcheck disable=SC2086
	exec curl $opts -L --max-redirs 20 --proto-redir =http "$url"
fi
# Tampering: follow by hand, and change state in the redirect that goes
# to the callback (the one carrying code=).
jar=$(mktemp)
trap 'rm -f "$jar"' EXIT
next=$url
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	loc=$(curl -sS --max-time 30 --proto =http -b "$jar" -c "$jar" -o /dev/null -w '%{redirect_url}' "$next")
	[ -n "$loc" ] || exit 0
	case "$loc" in
	*code=*) loc=$(printf '%s' "$loc" | sed 's/\([?&]state=\)[^&]*/\1forged-state/') ;;
	esac
	next=$loc
	case "$next" in
	*code=*)
		curl -sS --max-time 30 --proto =http -o /dev/null "$next"
		exit 0
		;;
	esac
done
echo "follow-redirect: too many redirects" >&2
exit 1
