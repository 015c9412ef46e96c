#!/usr/bin/env bash
# The README's first command: on a fresh Debian machine, install what is
# missing, build, start the bundled Catalyst simulator on 127.0.0.1 with a
# realistic project, audit its runs over MCP, print the report, stop the
# simulator.  No account, no network beyond loopback (and the package
# mirrors when something must be installed).
#
# Usage: bash scripts/demo.sh [extra catalyst-audit options...]
# Exit: 0 when the audit completed (findings are the point of the demo),
# otherwise catalyst-audit's own exit status (2..6), or 10 if the build failed, the simulator
# could not start or a write tool was called.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { printf 'demo: %s\n' "$*" >&2; }

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

# 3. Build (once; ninja is a no-op when up to date).
# Quiet when it works; the whole log when it does not.
blog=$(mktemp "${TMPDIR:-/tmp}/catalyst-demo-build.XXXXXX")
if ! { [[ -f build-demo/build.ninja ]] || meson setup build-demo -Dtests=false; } >"$blog" 2>&1 ||
   ! ninja -C build-demo catalyst-audit >>"$blog" 2>&1; then
	cat "$blog" >&2
	rm -f "$blog"
	say "the build failed"
	exit 10
fi
rm -f "$blog"

# 4. The simulator, on loopback, with the realistic project "payments": a
#    double-charged payment, a timed-out shipment retried, a retried child
#    workflow, a clean run.  Stateless, like the production server; at the
#    default data-sharing level; it records any write-tool call.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/catalyst-demo.XXXXXX")
sim_pid=
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [[ -n $sim_pid ]] && kill -0 "$sim_pid" 2>/dev/null; then
		kill -TERM "$sim_pid" 2>/dev/null || true
		wait "$sim_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$node" tests/sim/catalyst-sim.mjs --profile a --data-sharing metadata --stateless --max-seconds 300 \
	--record-writes "$tmp/writes.jsonl" >"$tmp/sim.out" 2>"$tmp/sim.err" &
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
say "running: build-demo/catalyst-audit --server $url --project payments --format text runs $*"
echo >&2

# 5. The audit.  A token from the environment would be sent to the
#    simulator: keep it out.
status=0
env -u CATALYST_TOKEN build-demo/catalyst-audit --server "$url" --project payments --format text runs "$@" || status=$?

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
exit 0
