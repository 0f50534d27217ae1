#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (see scripts/carry.sh):
# the GPU tests, the SASS, the bench, a headless render and a real window. Logs go to $OUT.
set -u
tar xJf .carry/bin.tar.xz -C .carry
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export MANDELPIPE_BIN=$PWD/.carry/mandelpipe XDG_CONFIG_HOME=/tmp/xdg
B=.carry
log=$OUT/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 240 "$@" >>"$log" 2>&1; local rc=$?; echo "   rc=$rc" | tee -a "$log"; return $rc; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$log"
for t in $B/*_tests; do step $t; done
cuobjdump -sass $B/mandelpipe >"$OUT/sass.txt" 2>&1
step $B/mandelpipe render --out "$OUT/render.png" --width 1920 --height 1080 --variant fma4-sin \
  --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096
step $B/mandelpipe --frames 120 --screenshot "$OUT/window.png" --width 1600 --height 900 --no-vsync
echo "== bench" | tee -a "$log"
$B/mandelpipe bench --variant all --present --sin-sweep --format md >"$OUT/bench.md" 2>>"$log"
cat "$OUT/bench.md"
# Hardware counters per warp-iteration, to check the declared mixes (view C: no divergence).
M=sm__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_xu.sum
for v in fma5 fma4 fma4-sin; do
  echo "== ncu $v" >>"$OUT/ncu.txt"
  $B/mandelpipe render --out /tmp/c.png --width 1024 --height 1024 --center -0.75,0 --span 0.05 \
    --iters 16384 --variant $v >/dev/null 2>&1
  python3 -c "import json;print('warp_iters', json.load(open('/tmp/c.json'))['frame']['measured']['warp_iters'])" >>"$OUT/ncu.txt"
  ncu --clock-control none --metrics $M -k regex:render_kernel $B/mandelpipe render --out /tmp/n.png \
    --width 1024 --height 1024 --center -0.75,0 --span 0.05 --iters 16384 --variant $v 2>&1 |
    grep -E "sm__" >>"$OUT/ncu.txt"
done
cat "$OUT/ncu.txt"
grep -E "differ|loop of|rc=|FAILED|Skipped|OK \]" "$log" | head -60
# Where view B's time goes beyond the model (fma4, 3840x2160).
ncu --clock-control none --section SchedulerStats --section WarpStateStats --section Occupancy \
  --metrics sm__inst_executed.sum,sm__cycles_elapsed.max,sm__cycles_elapsed.min -k regex:render_kernel \
  $B/mandelpipe render --out /tmp/b.png --width 3840 --height 2160 --center -0.743643887037151,0.131825904205330 \
  --span 0.005 --iters 4096 --variant fma4 >"$OUT/ncu_b.txt" 2>&1
python3 -c "import json;print('view B fma4', json.load(open('/tmp/b.json'))['frame']['measured'])" >>"$OUT/ncu_b.txt" 2>&1
grep -E "Issue Slots|Active Warps|Achieved Occ|Stall|inst_executed|cycles_elapsed|Eligible|No Eligible|warp_iters" "$OUT/ncu_b.txt" | head -30
