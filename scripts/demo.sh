#!/usr/bin/env bash
# The README's first command: on a fresh Debian machine, install what is
# missing, build, start the bundled Catalyst simulator on 127.0.0.1 with a
# realistic project, audit its runs over MCP, print the report, stop the
# simulator.  No account, no network beyond loopback (and the package
# mirrors when something must be installed).
#
# Usage: bash scripts/demo.sh [--keep] [extra catalyst-audit options...]
#   --keep  leave the simulator running (for an hour at most) and print the
#           lines that point a shell at it (export CATALYST_MCP_URL=...) and
#           a few commands to try by hand.
# The build goes outside the source tree: $CATALYST_DEMO_BUILD_DIR, else
# ${XDG_CACHE_HOME:-~/.cache}/catalyst-audit/demo-build-<hash of this
# checkout's path>; the demo says where the binary is.
# Exit: 0 when the audit completed (findings are the point of the demo),
# otherwise catalyst-audit's own exit status (2..7), or 10 if the build failed, the simulator
# could not start or a write tool was called.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { printf 'demo: %s\n' "$*" >&2; }

keep=false
args=()
for a in "$@"; do
	if [[ $a == --keep ]]; then keep=true; else args+=("$a"); fi
done

# 1. Packages: only the missing ones (compiler, meson, ninja, libcurl,
#    jansson, OpenSSL, Node.js, npm).
bash scripts/install-deps.sh build

# 2. The official MCP SDK the simulator is built on.
if [[ ! -d tests/npm/node_modules/@modelcontextprotocol/sdk ]]; then
	say "installing the simulator's npm packages (tests/npm)"
	(cd tests/npm && npm ci --no-audit --no-fund --loglevel=error)
fi
node=node
if [[ -x tests/npm/node_modules/.bin/node ]] && tests/npm/node_modules/.bin/node --version >/dev/null 2>&1; then
	node=tests/npm/node_modules/.bin/node
fi

# 3. Build (once; ninja is a no-op when up to date), outside the source
#    tree: one folder per checkout, since a build folder belongs to one
#    source folder.
cache=${XDG_CACHE_HOME:-}
[[ $cache == /* ]] || cache=${HOME:-/tmp}/.cache
build=${CATALYST_DEMO_BUILD_DIR:-$cache/catalyst-audit/demo-build-$(printf '%s' "$root" | sha256sum | cut -c1-12)}
bin=$build/catalyst-audit
# Quiet when it works; the whole log when it does not.
blog=$(mktemp "${TMPDIR:-/tmp}/catalyst-demo-build.XXXXXX")
if ! { [[ -f $build/build.ninja ]] || meson setup "$build" -Dtests=false; } >"$blog" 2>&1 ||
   ! ninja -C "$build" catalyst-audit >>"$blog" 2>&1; then
	cat "$blog" >&2
	rm -f "$blog"
	say "the build in $build failed"
	exit 10
fi
rm -f "$blog"
say "catalyst-audit is built in $build (the binary: $bin)"

# 4. The simulator, on loopback, with the realistic project "payments": a
#    double-charged payment, a timed-out shipment retried, a retried child
#    workflow, a clean run; its runs moved to the last hours (--since 24h
#    finds them), and live runs that grow while read (run --follow).
#    Stateless, like the production server; at the default data-sharing
#    level; it records any write-tool call.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/catalyst-demo.XXXXXX")
sim_pid=
kept=false
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [[ $kept == true ]]; then
		return # the simulator and its log stay
	fi
	if [[ -n $sim_pid ]] && kill -0 "$sim_pid" 2>/dev/null; then
		kill -TERM "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lifetime=300
$keep && lifetime=3600
"$node" tests/sim/catalyst-sim.mjs --profile a --data-sharing metadata --stateless --shift-now --live --live-step-ms 500 \
	--max-seconds "$lifetime" --record-writes "$tmp/writes.jsonl" >"$tmp/sim.out" 2>"$tmp/sim.err" </dev/null &
sim_pid=$!

url=
for _ in $(seq 1 300); do
	url=$(sed -n 's/^LISTENING \(http:\/\/127\.0\.0\.1:[0-9]*\/mcp\)$/\1/p' "$tmp/sim.out")
	[[ -n $url ]] && break
	kill -0 "$sim_pid" 2>/dev/null || break
	sleep 0.1
done
if [[ -z $url ]]; then
	say "the Catalyst simulator did not start:"
	cat "$tmp/sim.err" >&2
	exit 10
fi
say "simulated Catalyst MCP server at $url (project: payments)"
say "running: $bin --server $url --project payments --format text runs ${args[*]}"
echo >&2

# 5. The audit.  A token from the environment would be sent to the
#    simulator: keep it out.
status=0
env -u CATALYST_TOKEN "$bin" --server "$url" --project payments --format text runs ${args[@]+"${args[@]}"} || status=$?

if [[ -s $tmp/writes.jsonl ]]; then
	say "a write tool was called (this must never happen):"
	cat "$tmp/writes.jsonl" >&2
	exit 10
fi
echo >&2
case $status in
0) say "audit done: nothing at or above the --fail-on threshold (exit 0)" ;;
1) say "audit done: findings at or above the --fail-on threshold (catalyst-audit exit 1, expected here)" ;;
*) say "catalyst-audit failed with exit status $status"; exit "$status" ;;
esac

# 6. The incident itself: a run still running (the simulator's live-7001:
#    an ambiguous failure, then retries), followed for ten seconds.
say "following a run while it runs: $bin --server $url run checkout live-7001 --follow --follow-for 10s"
echo >&2
fstatus=0
env -u CATALYST_TOKEN "$bin" --server "$url" run checkout live-7001 --follow --follow-for 10s || fstatus=$?
case $fstatus in
0 | 1) ;;
*) say "the follow failed with exit status $fstatus"; exit "$fstatus" ;;
esac

if $keep; then
	kept=true
	say "the simulator keeps running (pid $sim_pid, log $tmp/sim.err); it stops by itself in an hour,"
	say "or now with: kill $sim_pid"
	say "try commands by hand against the demo data (projects payments, default, 42):"
	echo >&2
	printf '  export CATALYST_MCP_URL=%s\n' "$url" >&2
	# shellcheck disable=SC2016  # $PATH is for the user's shell to expand
	printf '  export PATH="%s:$PATH"\n' "$build" >&2
	if [[ -n ${CATALYST_TOKEN:-} ]]; then
		printf '  unset CATALYST_TOKEN    # the simulator needs none\n' >&2
	fi
	cat >&2 <<'TRY'
  catalyst-audit --project payments run pay-20931
  catalyst-audit --project payments runs --workflow paymentworkflow --limit 5
  catalyst-audit --project payments link pay-20931 --web
  catalyst-audit run checkout live-7003 --follow       # a run while it runs
  catalyst-audit --project 42 run order-9001          # one run id in two apps: exit 2
  catalyst-audit whoami
TRY
	echo >&2
fi
exit 0
