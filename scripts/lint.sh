#!/usr/bin/env bash
# Static checks: clang-format (the style in .clang-format) over src/,
# include/ and tests/*.c, then the clang static analyzer (scan-build) over a
# fresh build. Prints what it found; exit 0 only when both are clean.
#   scripts/lint.sh              # both
#   scripts/lint.sh format       # only clang-format
#   scripts/lint.sh analyze      # only scan-build
# The analyzer runs through analyze-build when it is installed (same
# analyzer, no compile of its own, all cores); LINT_SCAN_BUILD=1 forces the
# classic `scan-build ninja` run.
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
status=0

if [[ $what == all || $what == format ]]; then
  echo "=== clang-format"
  files=(src/*.c src/*.h include/*.h tests/*.c tests/*.h tests/fuzz/*.c tests/conformance/*.c)
  # One clang-format for every file (a process each took 131 s on a CI
  # machine); its violations name file:line, counted here per file.
  out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1)
  [[ -n ${LINT_VERBOSE:-} && -n $out ]] && echo "$out"
  counts=$(grep 'clang-format-violations' <<<"$out" | cut -d: -f1 | sort | uniq -c)
  bad=0
  while read -r n f; do
    [[ -n $f ]] || continue
    echo "$f: $n place(s) differ from .clang-format"
    bad=$((bad + 1))
  done <<<"$counts"
  if [[ $bad -eq 0 && -n $out ]]; then
    echo "$out"
    bad=1
  fi
  if [[ $bad -gt 0 ]]; then
    echo "clang-format: $bad of ${#files[@]} files differ (LINT_VERBOSE=1 shows where; clang-format -i FILE fixes)"
    status=1
  else
    echo "clang-format: clean"
  fi
fi

if [[ $what == all || $what == analyze ]]; then
  echo "=== scan-build"
  start=$SECONDS
  dir=$(mktemp -d /tmp/catalyst-audit-scan.XXXXXX)
  report=$dir/report
  # Only the core library and the binary: -Dtests=false leaves the Check
  # suite and the fuzzers out of the build.
  analyze=$(command -v analyze-build || command -v analyze-build-14 || true)
  if [[ -n $analyze && -z ${LINT_SCAN_BUILD:-} ]]; then
    # scan-build's Python half: the same analyzer and default checkers, run
    # from meson's compile_commands.json on every core, without also
    # compiling each file the way scan-build's compiler wrapper does (that
    # was a third of the time). Configured with clang so every flag in the
    # database is one clang understands.
    if ! CC=clang meson setup "$dir/build" -Dtests=false >"$dir/setup.log" 2>&1; then
      cat "$dir/setup.log"; exit 2
    fi
    # The sources the build generates (escape.c's Unicode table) are made
    # first: the analyzer compiles nothing of its own.
    if ! ninja -C "$dir/build" escape_unsafe_ranges.inc >"$dir/gen.log" 2>&1; then
      cat "$dir/gen.log"; exit 2
    fi
    # The grammars' generated parsers (grammars/, vendored by npm) are not
    # our code: out of the database the analyzer reads.
    python3 - "$dir/build/compile_commands.json" "$dir/cdb.json" <<'PY'
import json, sys
cdb = json.load(open(sys.argv[1]))
json.dump([c for c in cdb if "/grammars/" not in c["file"]], open(sys.argv[2], "w"))
PY
    "$analyze" --cdb "$dir/cdb.json" --status-bugs --keep-empty \
      -o "$report" >"$dir/scan.log" 2>&1
    rc=$?
    out=$(ls -d "$report"/*/ | head -n 1)
    if compgen -G "$out/failures/*.stderr.txt" >/dev/null; then
      # A file the analyzer could not compile is not a clean file.
      # analyze-build stores the compiler's output with its newlines lost:
      # split it again before each "file:line:col:" to show the errors.
      cat "$out"/failures/*.stderr.txt |
        sed -E 's/([^ ]+\.[ch]:[0-9]+:[0-9]+: )/\n\1/g' | grep -E 'error:' | head -n 20
      echo "scan-build: the analyzer failed on some files (details: $out/failures)"
      status=1
    elif [[ $rc -ne 0 ]] || compgen -G "$out/report-*.html" >/dev/null; then
      # The HTML reports carry the location in comments: one line each.
      for f in "$out"/report-*.html; do
        [[ -f $f ]] || continue
        awk '/^<!-- BUGFILE / { file = $3; sub(".*/src/", "src/", file) }
             /^<!-- BUGLINE / { line = $3 }
             /^<!-- BUGDESC / { desc = $0; sub("^<!-- BUGDESC ", "", desc); sub(" -->$", "", desc) }
             END { print file ":" line ": " desc }' "$f"
      done | sort -t: -k1,1 -k2,2n
      cat "$dir/scan.log"
      echo "scan-build: findings (HTML report under $out)"
      status=1
    else
      echo "scan-build: clean ($((SECONDS - start)) s)"
    fi
  else
    # Configured under scan-build too, so meson records its compiler wrapper
    # (what meson's own scan-build target does).
    if ! scan-build -o "$report" meson setup "$dir/build" -Dtests=false >"$dir/setup.log" 2>&1; then
      cat "$dir/setup.log"; exit 2
    fi
    # --status-bugs: exit 1 when the analyzer reports anything.
    scan-build --status-bugs --exclude "$PWD/grammars" -o "$report" ninja -C "$dir/build" >"$dir/scan.log" 2>&1
    rc=$?
    if grep -q 'FAILED:' "$dir/scan.log"; then
      grep -E -A3 'FAILED:|error:' "$dir/scan.log" | head -40
      echo "scan-build: the build failed (log: $dir/scan.log)"
      status=1
    elif [[ $rc -ne 0 ]]; then
      grep -E 'warning:|scan-build:' "$dir/scan.log"
      echo "scan-build: findings (HTML report under $report)"
      status=1
    else
      echo "scan-build: clean ($((SECONDS - start)) s)"
    fi
  fi
  [[ $status -eq 0 ]] && rm -rf "$dir"
fi
exit $status
