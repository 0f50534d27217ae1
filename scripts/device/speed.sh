#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh): the
# speed evidence of the fast variants. Each is timed with `bench` at A, B and C as first frames,
# at views beyond them, and along zoom paths, all with the limit columns. ncu then reads, at view
# C, how busy issue is and why it waits. $VARIANTS picks the variants; $GPU_TESTS=1 runs gpu_tests
# first; $SASS=1 also saves the SASS (cuobjdump) for tests/tools/sass-fixtures.py. Logs go to
# $OUT/speed.tgz, and log.txt has the short table last, then every run's exit code (and the script
# exits non-zero if any failed).
set -u
A=/tmp/speed
source "$(dirname "$0")/common.sh"
variants=${VARIANTS:-fma4-rows fma4-cycles fma4-x16 fma4-refill}
if [ "${GPU_TESTS:-0}" = 1 ]; then
  timeout 400 $B/gpu_tests >"$A/gpu_tests.txt" 2>&1
  rc=$?
  record gpu_tests $rc
  echo "gpu_tests rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$A/gpu_tests.txt" | tr '\n' ' ')" | tee -a "$log"
fi
if [ "${SASS:-0}" = 1 ]; then
  cuobjdump -sass $B/mandelpipe | gzip >"$OUT/sass.txt.gz"
  record "cuobjdump -sass mandelpipe" "${PIPESTATUS[0]}"
fi
# Views beyond the bench's three: valleys, a minibrot, a spiral, the cusp of the cardioid (long
# escapes), a needle on the real axis, sparse views, and one outside the set.
views=(-0.745,0.113,0.01,2048 0.2725,0.0055,0.012,4096 -1.7548776662,0,0.04,4096
  -0.7746806106,-0.1374168856,0.002,8192 0.25,0.0,0.002,16384 -1.9999,0,0.0005,2048
  -0.088,0.654,0.02,2048 0.9,0.9,4,1000 2,2,4,1000)
for v in $variants; do
  timeout 300 $B/mandelpipe bench --variant $v --tile-order rows --format md >"$A/abc-$v.md" 2>&1
  record "bench $v at A, B, C" $?
  args=()
  for w in "${views[@]}"; do args+=(--view "$w"); done
  timeout 300 $B/mandelpipe bench --variant $v "${args[@]}" --format md >"$A/views-$v.md" 2>&1
  record "bench $v at more views" $?
  timeout 300 $B/mandelpipe bench --variant $v --zoom -0.10109636384562,0.95628651080914 \
    --from 3 --to 2e-4 --steps 20 --iters 2048 --format md >"$A/zoom-$v.md" 2>&1
  record "bench $v along a zoom" $?
  timeout 300 $B/mandelpipe bench --variant $v --zoom -0.7436447860,0.1318252536 \
    --from 3 --to 1e-4 --steps 24 --iters 4096 --format md >"$A/zoom2-$v.md" 2>&1
  record "bench $v along a second zoom" $?
done
m=smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
m=$m,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
for v in $variants; do
  # The variant's own kernel (bench renders fma4 too, for its pixels that differ), by the struct
  # that names it.
  kernel=$($B/mandelpipe --list-variants | awk -v v="$v" '$1 == v {print $2}')
  timeout 200 ncu --clock-control none --kernel-name-base demangled -k regex:"render_kernel<.*$kernel," -c 1 \
    --metrics $m $B/mandelpipe bench --variant $v --view -0.75,0,0.05,16384 --width 1920 \
    --height 1080 --frames 10 >"$A/ncu-$v.txt" 2>&1
  record "ncu on $v" $?
done
tar czf $OUT/speed.tgz -C $A .
for v in $variants; do
  echo "== $v" | tee -a "$log"
  cat "$A/abc-$v.md" "$A/views-$v.md" "$A/zoom-$v.md" "$A/zoom2-$v.md" | grep -E "^\| " |
    grep -vE "^\| *(view \||---)" | grep -vE "^\| [0-9]+ " | cut -c1-150 | tee -a "$log"
  grep -E "issue_active|dispatch_stall|inst_executed" "$A/ncu-$v.txt" | tee -a "$log"
done
finish
