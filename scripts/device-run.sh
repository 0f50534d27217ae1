#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (see scripts/carry.sh):
# the GPU tests, the SASS, the bench, a headless render and a real window. Logs go to $OUT.
set -u
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export MANDELPIPE_BIN=$PWD/.carry/mandelpipe XDG_CONFIG_HOME=/tmp/xdg
B=.carry
log=$OUT/log.txt
step() { echo "== $*" | tee -a "$log"; "$@" >>"$log" 2>&1; local rc=$?; echo "   rc=$rc" | tee -a "$log"; return $rc; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$log"
for t in gpu_tests gl_tests program_tests; do [ -x $B/$t ] && step $B/$t; done
cuobjdump -sass $B/mandelpipe >"$OUT/sass.txt" 2>&1
step $B/mandelpipe render --out "$OUT/render.png" --width 1920 --height 1080 --variant fma4-sin \
  --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096
step $B/mandelpipe --frames 120 --screenshot "$OUT/window.png" --width 1600 --height 900 --no-vsync
echo "== bench" | tee -a "$log";
  $B/mandelpipe bench --variant all --present --format json >"$OUT/bench.json" 2>>"$log"
python3 - "$OUT/bench.json" <<'PY' 2>&1 | tee "$OUT/bench.md"
import json, sys
d = json.load(open(sys.argv[1]))
print(d["device"])
for r in d["rows"]:
    m, dv, mo = r["measured"], r["derived"], r["model"]
    print(f'{r["view"]} {r["variant"]:9} {m["kernel_ms"]:8.3f} ms {m["sm_cycles"]/1e6:8.3f} Mcyc {dv["clock_ghz"]:.3f} GHz '
          f'{dv["giter_per_s"]:7.1f} Git/s simt {dv["simt_efficiency"]*100:5.1f}% bound {mo["bound_max_ms"]:7.3f}/{mo["bound_sum_ms"]:7.3f} ms '
          f'{mo["limiting_pipe"]:5} {mo["pct_of_bound"]:5.1f}%')
for p in d.get("present", []):
    print(f'{p["ms"]:7.3f} ms  {p["path"]}  [{p["what"]}]')
PY
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
