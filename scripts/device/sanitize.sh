#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh), as
# run.sh does; builds nothing. compute-sanitizer's memcheck, racecheck and
# synccheck over every kernel: gpu_tests (every variant against the CPU reference, the counts
# and divergence outputs, the tile-ordering kernels), bench at a small size (each view's first
# frame, which records the tile costs, then frames ordered by them) and every experiment of
# `mandelpipe experiment --list`. Prints a table (tool x target: the tool's summary line), and
# leaves every log in $OUT/sanitize-logs.tgz.
#   scripts/device/sanitize.sh [--limit SECONDS] [TOOL...]   (tools: memcheck racecheck synccheck)
# One run is stopped after --limit seconds (default 180) and marked "timeout". racecheck is the
# slow one (each launch is checked: launch-overhead makes thousands); the three tools together
# stay within the device tool's 10 minutes a call unless several runs reach the limit.
# Exits non-zero when anything was found or failed.
set -u
limit=180
tools=()
while (($#)); do
  case $1 in
    --limit) limit=$2; shift 2 ;;
    memcheck | racecheck | synccheck) tools+=("$1"); shift ;;
    *) echo "sanitize: unknown argument '$1' (--limit S, memcheck, racecheck, synccheck)" >&2; exit 2 ;;
  esac
done
((${#tools[@]})) || tools=(memcheck racecheck synccheck)
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "sanitize: --limit needs whole seconds, got '$limit'" >&2; exit 2; }
A=/tmp/sanitize
rm -rf $A
source "$(dirname "$0")/common.sh"
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [[ -z $sanitizer ]]; then
  echo "sanitize: compute-sanitizer not found (neither on PATH nor in /usr/local/cuda/bin)" >&2
  exit 2
fi
"$sanitizer" --version | tail -n 1 | tee $A/version.txt

# Targets: a name for the table, then the command.
# gpu_tests without RequireGpu, which runs gpu_tests again with the GPU hidden: no kernel there,
# only the failed device query that the sanitizer would report.
targets=("gpu_tests|$B/gpu_tests --gtest_filter=-RequireGpu.*"
         "bench-256x144|$B/mandelpipe bench --variant all --width 256 --height 144 --frames 10 --format json")
list=$("$B"/mandelpipe experiment --list) || {
  echo "sanitize: mandelpipe experiment --list failed: is the GL kit (.device) carried?" >&2
  exit 2
}
experiments=$(awk '{print $1}' <<<"$list")  # a line each, the name first
for e in $experiments; do  # the catalogue, the one list
  targets+=("exp-$e|$B/mandelpipe experiment $e --format json")
done

table=()
for tool in "${tools[@]}"; do
  for t in "${targets[@]}"; do
    name=${t%%|*} cmd=${t#*|}
    tool_log=$A/$tool-$name.log
    # racecheck keeps host memory per launch it checks: over launch-overhead's thousands it grew
    # past the machine's memory and was killed (docs/measurements.md). The first 100 launches
    # hold both of its kernels (the chain kernel's timing runs, then the empty one's).
    extra=()
    [[ $tool == racecheck && $name == exp-launch-overhead ]] && extra=(--launch-count 100)
    # --error-exitcode tells a finding from the program's own failure; the log holds the report.
    # shellcheck disable=SC2086  # cmd is words by design
    timeout "$limit" "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 50 \
      "${extra[@]}" --log-file "$tool_log" $cmd >"$A/$tool-$name.out" 2>&1
    rc=$?
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$tool_log" 2>/dev/null | tail -n 1 | sed 's/^=* *//')
    case $rc in
      0) verdict="clean" ;;
      86) verdict="FINDINGS" ;;
      124) verdict="timeout after ${limit} s" ;;
      *) verdict="rc=$rc (the program failed; see $tool-$name.out)" ;;
    esac
    table+=("$(printf '%-10s %-26s %-34s %s' "$tool" "$name" "$verdict" "${summary:--}")")
    echo "${table[-1]}"
  done
done
{
  printf '%-10s %-26s %-34s %s\n' tool target verdict summary
  printf '%s\n' "${table[@]}"
} | tee $A/table.txt
tar czf "$OUT/sanitize-logs.tgz" -C $A .
# Non-zero when anything was found or failed, so that a caller sees it without reading the table.
! grep -qE "FINDINGS|rc=|timeout" $A/table.txt
