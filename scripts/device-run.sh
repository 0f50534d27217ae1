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
step $B/mandelpipe --frames 120 --screenshot "$OUT/window.png" --width 1600 --height 900 --no-vsync \
  --overlay --sass --divergence --variant sin-ratio
# The experiments window as a speaker opens it, run and plotted on the GPU.
step $B/mandelpipe --frames 30 --screenshot "$OUT/window-experiment.png" --width 1600 \
  --height 900 --no-vsync --open-experiment warps-per-smsp
# F12 as a user presses it: the window's PNG and its sidecar, which gets a table of every
# variant at this view (compared on the spot: none was made before).
if [ -x $B/xtest-keys ]; then
  mkdir -p "$OUT/capture"
  $B/mandelpipe --frames 3000 --no-vsync --width 1280 --height 720 --overlay \
    --capture-dir "$OUT/capture" >>"$log" 2>&1 &
  app=$!
  sleep 6
  $B/xtest-keys F12 >>"$log" 2>&1
  wait $app
  echo "   F12 capture rc=$?: $(ls "$OUT/capture" | tr '\n' ' ')" | tee -a "$log"
  python3 -c "import json,glob;j=json.load(open(glob.glob('$OUT/capture/*.json')[0]));c=j['compare'];print('   sidecar:',j['device']['name'],'clock',round(j['clock_ghz'],3),'GHz,',len(c['rows']),'variants compared:',', '.join('%s %.1f%%'%(r['variant'],r['model']['pct_of_bound']) for r in c['rows']))" 2>&1 | tee -a "$log"
fi
# sin-ratio's "measure the balance" clicked in the panel (where the default layout puts it).
if [ -x $B/xtest-keys ]; then
  $B/mandelpipe --frames 2500 --no-vsync --width 1600 --height 900 --variant sin-ratio \
    --screenshot "$OUT/window-sweep.png" >>"$log" 2>&1 &
  app=$!
  sleep 6
  $B/xtest-keys click 270 175 >>"$log" 2>&1
  wait $app
  echo "   sweep click rc=$?" | tee -a "$log"
fi
# The overlay's cost: one run with the overlay on and off in alternating blocks of frames, so
# that drift in the frame time hits both alike; three times, to see the spread.
for run in 1 2 3; do
  step $B/mandelpipe --frames 3000 --no-vsync --width 1600 --height 900 --overlay-ab
done
grep -E "^overlay A/B" "$log"
echo "== bench" | tee -a "$log"
$B/mandelpipe bench --variant all --present --sin-sweep --format md >"$OUT/bench.md" 2>>"$log"
$B/mandelpipe bench --variant all --tile-order rows --format md >"$OUT/bench-rows.md" 2>>"$log"
cat "$OUT/bench.md"
grep -E "^\| [ABC] " "$OUT/bench-rows.md"
echo "== experiments" | tee -a "$log"
for e in fma-grouping sin-overlap warps-per-smsp single-warp-ilp launch-overhead dependent-latency dispatch; do
  timeout 120 $B/mandelpipe experiment $e >>"$OUT/experiments.md" 2>>"$log"; echo "   $e rc=$?" | tee -a "$log"
done
grep -E "differ|rc=|FAILED|Failure|Which is" "$log" | head -60
