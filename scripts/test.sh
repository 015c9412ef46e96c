#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing, then builds
# and tests three ways (plain, under valgrind, with ASan/UBSan), runs every
# libFuzzer harness for a bounded time, and the static checks (clang-format,
# clang analyzer). Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh test || exit 1

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
fuzz_seconds=${FUZZ_SECONDS:-10}
summary=()
status=0

setup() { # dir, meson args...
  local dir=$1; shift
  if [[ -d $dir ]]; then
    meson setup --reconfigure "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  else
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  fi
  ninja -C "$dir"
}

count() { # dir: that build's results from its newest test log
  local log
  log=$(ls -t "$1"/meson-logs/testlog*.json | head -n 1)
  python3 scripts/testlog-count "$log"
}

passed=0
failed=0
failures=()
run_suite() { # label, dir, meson test args...
  local label=$1 dir=$2 start=$SECONDS; shift 2
  echo "=== $label"
  meson test -C "$dir" --print-errorlogs -v "$@" || status=1
  read -r ok bad _ < <(count "$dir")
  passed=$((passed + ok))
  failed=$((failed + bad))
  summary+=("$label: $ok passed, $bad failed ($((SECONDS - start)) s)")
  # kept for the end of the run, where a reader of only its tail looks
  if ((bad > 0)); then
    failures+=("=== $label failures" "$(python3 scripts/testlog-count --failed 25 "$(ls -t "$dir"/meson-logs/testlog*.json | head -n 1)")")
  fi
}

# 1. plain build, whole suite
setup build || exit 1
run_suite "suite" build

# 2. under valgrind (memcheck, CK_FORK=no): the unit tests, and the binary
#    itself through the CLI tests (the golden tests run the binary some
#    five hundred times: 600 s and more under memcheck on a CI machine)
run_suite "valgrind" build --setup valgrind --suite unit
CA_VALGRIND_CLI=1 run_suite "valgrind-cli" build cli

# 3. AddressSanitizer + UndefinedBehaviorSanitizer: every suite but those
#    whose time goes to Node peers or to starting the binary hundreds of
#    times (suites "peers" and "spawns", see scripts/list-tests); their C
#    paths run here through the unit, session, transport, interop, hostile,
#    schema and stats tests. Without the cases tagged heavy (inputs of
#    100 MB and more: their bounds are the plain pass's), and with twice the
#    time limits: the binary starts and runs several times slower under ASan.
setup build-asan -Db_sanitize=address,undefined -Db_lundef=false || exit 1
CK_EXCLUDE_TAGS=heavy CK_TIMEOUT_MULTIPLIER=2 \
  run_suite "asan+ubsan" build-asan --no-suite node --no-suite peers --no-suite spawns --timeout-multiplier 2

# 4. libFuzzer harnesses, each for a bounded time, seeded from the fixtures
if CC=clang setup build-fuzz -Dfuzz=true -Dtests=false -Db_sanitize=address,undefined -Db_lundef=false; then
  # One harness a core at a time: each still gets a whole core for its
  # bounded time, and the pass takes half as long on two cores.
  jobs=$(nproc 2>/dev/null || echo 1)
  fuzz_one() { # harness: exit status of its bounded run, log beside it
    local f=$1 name corpus seeds rc
    name=$(basename "$f")
    corpus=$(mktemp -d)
    seeds=tests/fuzz/seeds/${name#fuzz_}
    [[ -d $seeds ]] && cp -r "$seeds"/. "$corpus"/
    "$f" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 "$corpus" >"build-fuzz/$name.log" 2>&1
    rc=$?
    rm -rf "$corpus"
    return $rc
  }
  harnesses=()
  for f in build-fuzz/tests/fuzz/fuzz_*; do
    [[ -x $f && -f $f ]] && harnesses+=("$f")
  done
  declare -A pids=()
  for f in "${harnesses[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do wait -n || true; done
    fuzz_one "$f" &
    pids[$f]=$!
  done
  for f in "${harnesses[@]}"; do
    name=$(basename "$f")
    if wait "${pids[$f]}"; then
      passed=$((passed + 1)); echo "fuzz $name: ok (${fuzz_seconds}s)"
    else
      failed=$((failed + 1)); status=1; echo "fuzz $name: FAILED"; tail -40 "build-fuzz/$name.log"
    fi
  done
else
  failed=$((failed + 1)); status=1; echo "fuzz build: FAILED"
fi

# 5. static checks: clang-format against .clang-format, the clang analyzer
for check in format analyze; do
  start=$SECONDS
  if bash scripts/lint.sh "$check"; then
    passed=$((passed + 1)); summary+=("lint $check: ok ($((SECONDS - start)) s)")
  else
    failed=$((failed + 1)); status=1; summary+=("lint $check: FAILED ($((SECONDS - start)) s)")
  fi
done

summary+=("total: $SECONDS s")
((${#failures[@]} > 0)) && printf '%s\n' "${failures[@]}"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
exit $status
