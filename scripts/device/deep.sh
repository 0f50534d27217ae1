#!/bin/bash
# Runs on the GPU machine over a carried build (carry.sh): deep views. The perturbation
# GPU tests, deep renders at 1920x1080 from 1e-50 to past 1e-3000 (with the approximation and
# without), a minibrot at 1e-99 with 100,000 iterations, the perturbation kernels' SASS, and the
# plain fma4-rows at a shallow view for scale; with "window" instead, the window alone (a wheel
# zoom past 1e-300, a deep view's screenshot), which needs the GL kit with Xvfb
# (prepare.sh --with-glx) and so a carry of the program alone. Logs in $OUT; the table of every
# run's exit code last, and a non-zero exit if any failed.
set -u
A=/tmp/deep
source "$(dirname "$0")/common.sh"
# A minibrot of period 133 near i, about 1.4e-99 across (found by the ball method and Newton).
MX=-2.8746738709911711313587400396870764265927866835711251852350600795197350587946998122487577794952845346324586207476065879391063947636e-50
MY=9.9999999999999999999999999999999999999999999999999039187809335045450778414269872821211733536976797498590850573760529183579836058283e-01
window() {
# The window as an explorer drives it: from span 3 about c = i, wheel notches in bursts at the
# window's centre down past 1e-300 (1.2x a notch), then Escape; its summary says how it kept up.
$B/mandelpipe --frames 1000000 --width 1600 --height 900 --no-vsync --center 0,1 --span 3 \
  --screenshot "$OUT/wheel-end.png" >"$A/wheel.txt" 2>&1 &
pid=$!
sleep 4
keys=(window mandelpipe)
for _ in $(seq 400); do keys+=(scroll 800 450 10 w30); done
keys+=(w3000 Escape)
"$MANDELPIPE_XTEST_KEYS" "${keys[@]}" >>"$A/wheel.txt" 2>&1
wait $pid
rc=$?
record "wheel zoom" $rc
echo "== wheel zoom: rc=$rc" | tee -a "$log"
tee -a "$log" <"$A/wheel.txt"
step $B/mandelpipe --frames 30 --width 1600 --height 900 --no-vsync --center $MX,$MY --span 8e-99 \
  --iters 100000 --screenshot "$OUT/window-mini-1e99.png"
}
if [[ ${1:-} == window ]]; then
  window
  # Deep frames' divergence view (D) on the GPU: the minibrot in double, 1e-1000 in float.
  [[ -x $B/gpu_tests ]] && step $B/gpu_tests --gtest_filter='GpuPerturbationWarps*:DeepSliced*'
  step $B/mandelpipe --frames 40 --width 1600 --height 900 --no-vsync --center $MX,$MY \
    --span 8e-99 --iters 100000 --divergence --overlay --screenshot "$OUT/divergence-mini.png"
  step $B/mandelpipe --frames 40 --width 1600 --height 900 --no-vsync --variant perturb-f \
    --center 1.3e-1001,1 --span 3e-1000 --iters 20000 --divergence \
    --screenshot "$OUT/divergence-1e1000-f.png"
  finish
fi
if [[ ${1:-} == ncu ]]; then
  # Where the double step's time goes without the approximation: occupancy, issue and stalls.
  ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis -k regex:perturb -c 1 $B/mandelpipe render \
    --out "$A/ncu.png" --width 1920 --height 1080 --center $MX,$MY --span 8e-99 --iters 100000 \
    --no-approximation >"$OUT/ncu.txt" 2>&1
  record "ncu on the minibrot's render" $?
  tail -120 "$OUT/ncu.txt"
  finish
fi
if [[ ${1:-} == variants ]]; then
  # The perturbation variants beside the plain ones: every kernel's SASS (for the fixtures), the
  # LSU pipe's peak and the every-step loop's stalls by ncu, the variants' rows with counters at
  # a shallow view of long orbits and at seahorse valley, and the deep views' table.
  cuobjdump -sass $B/mandelpipe | gzip >"$OUT/sass.txt.gz"
  record "cuobjdump -sass mandelpipe" "${PIPESTATUS[0]}"
  step $B/gpu_tests --gtest_filter='SassMix*:*GpuPerturbation*'
  ncu --metrics sm__inst_executed_pipe_lsu.avg.peak_sustained,sm__inst_executed.avg.peak_sustained,sm__inst_executed_pipe_lsu.sum,sm__inst_executed_pipe_fp64.sum,sm__inst_executed.sum \
    -k regex:perturb -c 1 $B/mandelpipe render --out "$A/ncu0.png" --width 1920 --height 1080 \
    --center $MX,$MY --span 8e-99 --iters 100000 --no-approximation >"$A/ncu-lsu.txt" 2>&1
  record "ncu: LSU peak" $?
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters \
    -k regex:perturb -c 1 $B/mandelpipe render --out "$A/ncu1.png" --width 1920 --height 1080 \
    --center $MX,$MY --span 8e-99 --iters 100000 --no-approximation >"$A/ncu-stalls.txt" 2>&1
  record "ncu: stalls" $?
  timeout 400 $B/mandelpipe bench --width 1920 --height 1080 --frames 10 --counters \
    --view "-0.75,0.0,0.05,16384" --view "-0.743643887037151,0.131825904205330,0.005,4096" \
    >"$A/bench-shallow.md" 2>"$A/bench-shallow.err"
  record "bench at shallow views" $?
  timeout 300 $B/mandelpipe bench --width 1920 --height 1080 --frames 10 \
    --view "$MX,$MY,8e-99,100000" --view "1.3e-301,1,3e-300,20000" >"$A/bench-deep.md" 2>&1
  record "bench at deep views" $?
  tar czf $OUT/variants.tgz -C /tmp deep
  grep -E "peak_sustained|\.sum" "$A/ncu-lsu.txt" | tee -a "$log"
  grep -iE "Stall|Warp Cycles|Issued Ipc|Achieved Occ|Registers" "$A/ncu-stalls.txt" | head -30 | tee -a "$log"
  grep -E "^\| *(variant|fma4-rows|fp64|perturb)" "$A/bench-shallow.md" | tee -a "$log"
  cat "$A/bench-deep.md" | tail -20 | tee -a "$log"
  finish
fi
if [[ ${1:-} == float ]]; then
  # The three perturbation formats side by side: every kernel's SASS (for the fixtures), the
  # perturbation GPU tests, bench rows with counters at a view of long orbits, the minibrot and
  # two deep views, the experiment, and renders with the tables.
  cuobjdump -sass $B/mandelpipe | gzip >"$OUT/sass.txt.gz"
  record "cuobjdump -sass mandelpipe" "${PIPESTATUS[0]}"
  step $B/gpu_tests --gtest_filter='SassMix*:*GpuPerturbation*'
  for v in perturb perturb-x perturb-f; do
    timeout 300 $B/mandelpipe bench --variant $v --width 1920 --height 1080 --frames 10 --counters \
      --view "-0.75,0.0,0.05,16384" --view "$MX,$MY,8e-99,100000" --view "1.3e-301,1,3e-300,20000" \
      --view "1.3e-1001,1,3e-1000,20000" >"$A/bench-$v.md" 2>"$A/bench-$v.err"
    record "bench $v" $?
  done
  step $B/mandelpipe experiment perturbation-cost
  for v in perturb perturb-f; do
    step $B/mandelpipe render --out "$A/mini-$v.png" --width 1920 --height 1080 --variant $v \
      --center $MX,$MY --span 8e-99 --iters 100000
    step $B/mandelpipe render --out "$A/i1000-$v.png" --width 1920 --height 1080 --variant $v \
      --center 1.3e-1001,1 --span 3e-1000 --iters 20000
  done
  tar czf $OUT/float.tgz -C /tmp deep
  for v in perturb perturb-x perturb-f; do
    grep -E "^\| view [0-9] \| ($v|perturbation)" "$A/bench-$v.md" | head -12 | tee -a "$log"
  done
  finish
fi
if [[ ${1:-} == final ]]; then
  # Before a stop: every GPU test, the automatic limit from a preview at a minibrot and at
  # shallow views, and the counters as an ordinary user (bench, no window).
  step $B/gpu_tests
  step $B/experiment_gpu_tests
  step $B/program_tests
  step $B/render_big_tests
  auto() {  # name, then render's arguments
    local name=$1; shift
    step $B/mandelpipe render --out "$A/auto-$name.png" --width 1920 --height 1080 \
      --auto-iters on "$@"
  }
  auto mini --center $MX,$MY --span 8e-99 --iters 1000
  auto mini-wide --center $MX,$MY --span 1e-97 --iters 1000
  auto home --center -0.75,0 --span 3.5 --iters 256
  auto seahorse --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 1024
  auto i300 --center 1.3e-301,1 --span 3e-300 --iters 1000
  mkdir -p /tmp/nobody && chmod 777 /tmp/nobody
  chmod -R a+rX "$B"
  setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
    $B/mandelpipe bench --variant perturb --counters --width 1920 --height 1080 \
    --view "-0.75,0.0,0.05,16384" >"$A/bench-nobody.md" 2>>"$log"
  record "bench as nobody" $?
  tar czf $OUT/final.tgz -C /tmp deep
  grep -E "^\| view 1 \| perturb" "$A/bench-nobody.md" | tee -a "$log"
  grep -E "automatic|tried|rc=|FAILED|tests ran|PASSED" "$log" | tail -40
  finish
fi
if [[ ${1:-} == check ]]; then
  # After a change: every GPU test, the variants' rows with counters at a shallow view of long
  # orbits and at seahorse valley, and the window with perturb chosen at a shallow view and at
  # the minibrot (the overlay and the SASS view open), screenshots in $OUT.
  step $B/gpu_tests
  step $B/program_tests
  step $B/render_big_tests
  timeout 400 $B/mandelpipe bench --width 1920 --height 1080 --frames 10 --counters \
    --view "-0.75,0.0,0.05,16384" --view "-0.743643887037151,0.131825904205330,0.005,4096" \
    >"$A/bench-shallow.md" 2>"$A/bench-shallow.err"
  record "bench at shallow views" $?
  step $B/mandelpipe --frames 40 --width 1600 --height 900 --no-vsync --variant perturb \
    --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096 --overlay --sass \
    --screenshot "$OUT/window-perturb-shallow.png"
  step $B/mandelpipe --frames 40 --width 1600 --height 900 --no-vsync --center $MX,$MY \
    --span 8e-99 --iters 100000 --overlay --screenshot "$OUT/window-mini.png"
  tar czf $OUT/check.tgz -C /tmp deep
  grep -E "tests|FAILED|rc=" "$log" | tail -20
  grep -E "^\| view [12] \| (fma4-rows|fp64|perturb)" "$A/bench-shallow.md" | tee -a "$log"
  finish
fi
if [[ ${1:-} == sass ]]; then
  cuobjdump -sass $B/mandelpipe |
    awk '/Function : .*perturb/{p=1} /Function : / && !/perturb/{p=0} p' >"$OUT/perturb.sass"
  record "cuobjdump -sass mandelpipe" "${PIPESTATUS[0]}"
  wc -l "$OUT/perturb.sass"
  finish
fi
step $B/gpu_tests --gtest_filter='*GpuPerturbation*'
step $B/program_tests
step $B/render_big_tests
# The perturbation kernels' SASS (every architecture's), for their instruction mix.
cuobjdump -sass $B/mandelpipe |
  awk '/Function : .*perturb/{p=1} /Function : / && !/perturb/{p=0} p' >"$A/perturb.sass"
record "cuobjdump -sass mandelpipe" "${PIPESTATUS[0]}"
cp "$A/perturb.sass" "$OUT/"
r() {  # name, then render's arguments
  local name=$1; shift
  step $B/mandelpipe render --out "$A/$name.png" --width 1920 --height 1080 "$@"
}
r mini-1e99 --center $MX,$MY --span 8e-99 --iters 100000
r mini-1e99-noskip --center $MX,$MY --span 8e-99 --iters 100000 --no-approximation
step $B/mandelpipe render --out "$A/mini-1e99-cpu.png" --width 480 --height 270 --cpu \
  --center $MX,$MY --span 8e-99 --iters 100000
r i-1e50 --center 1.3e-51,1 --span 3e-50 --iters 20000
r i-1e300 --center 1.3e-301,1 --span 3e-300 --iters 20000
r i-1e300-noskip --center 1.3e-301,1 --span 3e-300 --iters 20000 --no-approximation
r i-1e1000 --center 1.3e-1001,1 --span 3e-1000 --iters 20000
r i-1e3100 --center 1.3e-3101,1 --span 3e-3100 --iters 40000
r seahorse-1e20 --center -0.74364388703715887077806454349364257504760996232125506,0.13182590420531229282109735487476726526298859967904297 --span 1e-20 --iters 20000
step $B/mandelpipe render --out "$A/orbit-1m.png" --width 64 --height 36 --center $MX,$MY \
  --span 3e-300 --iters 1000000
r fma4-rows-shallow --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096 --variant fma4-rows
step $B/mandelpipe bench --width 1920 --height 1080 --frames 10 \
  --view "$MX,$MY,8e-99,100000" --view "1.3e-301,1,3e-300,20000" --view "1.3e-1001,1,3e-1000,20000"
cp $A/mini-1e99.png $OUT/ 2>/dev/null
tar czf $OUT/deep.tgz -C /tmp deep
{
  echo "view | rendered by | kernel ms | counted | iterated | wall"
  for j in $A/[a-z]*-*.json; do
    python3 - "$j" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j.get("precision", {})
m = j.get("frame", {}).get("measured", {})
print(" | ".join(str(x) for x in [sys.argv[1].split('/')[-1][:-5], p.get("rendered_by"),
      m.get("kernel_ms", m.get("cpu_ms", j.get("frame", {}).get("kernel_ms"))), m.get("pixel_iters"),
      m.get("iterated"), p.get("reference", {}).get("orbit_ms")]))
PY
  done
} | tee -a "$log"
finish
