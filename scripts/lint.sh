#!/usr/bin/env bash
# Static checks: clang-format (the style in .clang-format) over src/,
# include/ and tests/*.c, then the clang static analyzer (scan-build) over a
# fresh build. Prints what it found; exit 0 only when both are clean.
#   scripts/lint.sh              # both
#   scripts/lint.sh format       # only clang-format
#   scripts/lint.sh analyze      # only scan-build
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
status=0

if [[ $what == all || $what == format ]]; then
  echo "=== clang-format"
  files=(src/*.c src/*.h include/*.h tests/*.c tests/*.h tests/fuzz/*.c)
  bad=0
  for f in "${files[@]}"; do
    [[ -f $f ]] || continue
    out=$(clang-format --dry-run --Werror "$f" 2>&1)
    if [[ -n $out ]]; then
      n=$(grep -c 'clang-format-violations' <<<"$out")
      echo "$f: $n place(s) differ from .clang-format"
      bad=$((bad + 1))
      [[ -n ${LINT_VERBOSE:-} ]] && echo "$out"
    fi
  done
  if [[ $bad -gt 0 ]]; then
    echo "clang-format: $bad of ${#files[@]} files differ (LINT_VERBOSE=1 shows where; clang-format -i FILE fixes)"
    status=1
  else
    echo "clang-format: clean"
  fi
fi

if [[ $what == all || $what == analyze ]]; then
  echo "=== scan-build"
  dir=$(mktemp -d /tmp/catalyst-audit-scan.XXXXXX)
  report=$dir/report
  # Configured under scan-build too, so meson records its compiler wrapper
  # (what meson's own scan-build target does).
  if ! scan-build -o "$report" meson setup "$dir/build" -Dtests=false >"$dir/setup.log" 2>&1; then
    cat "$dir/setup.log"; exit 2
  fi
  # --status-bugs: exit 1 when the analyzer reports anything.
  scan-build --status-bugs -o "$report" ninja -C "$dir/build" >"$dir/scan.log" 2>&1
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
    echo "scan-build: clean"
  fi
  [[ $status -eq 0 ]] && rm -rf "$dir"
fi
exit $status
