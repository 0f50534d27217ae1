#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (scripts/carry.sh): the
# hardware counters' evidence. Their tests, the bench and the throughput experiments with
# counters beside the model, the window with live counters (as root and as nobody), the refusal
# banner, and what the counters cost (--counters-ab). Logs and pictures go to $OUT.
set -u
tar xJf .carry/bin.tar.xz -C .carry
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export MANDELPIPE_BIN=$PWD/.carry/mandelpipe XDG_CONFIG_HOME=/tmp/xdg
B=$PWD/.carry
log=$OUT/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 300 "$@" >>"$log" 2>&1; local rc=$?; echo "   rc=$rc" | tee -a "$log"; return $rc; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$log"
grep -i profiling /proc/driver/nvidia/params | tee -a "$log"
step $B/counters_tests
step $B/experiment_gpu_tests --gtest_filter='CounterGpuTest.*'
step $B/program_tests --gtest_filter='ProgramGpuTest.BenchCounter*'
echo "== bench --counters" | tee -a "$log"
$B/mandelpipe bench --variant all --counters --format json >"$OUT/bench-counters.json" 2>>"$log"
for e in fma-grouping sin-overlap; do
  $B/mandelpipe experiment $e --counters --format json >"$OUT/exp-$e.json" 2>>"$log"
  cp "$OUT/exp-$e.json" /tmp/
done
# The window as a user opens it, counters live beside the model, at view B.
step $B/mandelpipe --frames 400 --no-vsync --overlay --width 1600 --height 900 --variant fma4 \
  --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096 \
  --screenshot "$OUT/window-counters.png"
# F12 as a user presses it: the sidecar carries the counters and a compare table with them.
if [ -x $B/xtest-keys ]; then
  mkdir -p "$OUT/capture"
  $B/mandelpipe --frames 3000 --no-vsync --width 1280 --height 720 --overlay \
    --capture-dir "$OUT/capture" >>"$log" 2>&1 &
  app=$!
  sleep 6
  $B/xtest-keys F12 >>"$log" 2>&1
  wait $app
  python3 -c "import json,glob;j=json.load(open(glob.glob('$OUT/capture/*.json')[0]));print('   sidecar counters:',j['counters_source'][:90],'| issue',j['counters']['pipes']['issue'],'| compare rows with counters:',sum(1 for r in j['compare']['rows'] if r.get('counters') and not r['counters']['unavailable']))" 2>&1 | tee -a "$log"
  mv "$OUT"/capture/*.json "$OUT/sidecar.json" 2>/dev/null
  rm -rf "$OUT/capture"
fi
# The same as an ordinary user: the driver here lets every user profile (RmProfilingAdminOnly 0).
mkdir -p /tmp/nobody && chmod 777 /tmp/nobody
chmod -R a+rX "$B" .device
echo "== as nobody" | tee -a "$log"
setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
  $B/mandelpipe --frames 300 --no-vsync --overlay --width 1280 --height 720 \
  --screenshot /tmp/nobody/window-nobody.png >>"$log" 2>&1
echo "   rc=$?" | tee -a "$log"
cp /tmp/nobody/window-nobody.png "$OUT/" 2>/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
  $B/mandelpipe bench --variant fma4 --counters --format md >"$OUT/bench-nobody.md" 2>>"$log"
echo "   nobody bench rc=$?" | tee -a "$log"
# The refusal path as a user without profiling rights meets it (CUPTI's answer injected).
MANDELPIPE_COUNTERS_REFUSE=enable step $B/mandelpipe --frames 60 --no-vsync --overlay \
  --width 1280 --height 720 --screenshot "$OUT/window-refused.png"
# Another profiler holding the counters: ncu around the bench (its first two kernels profiled).
echo "== under ncu" | tee -a "$log"
timeout 180 ncu --metrics smsp__inst_executed.sum -c 2 $B/mandelpipe bench --variant fma4 \
  --counters --frames 10 --format md >"$OUT/under-ncu.txt" 2>&1
echo "   rc=$?: $(grep -m1 -E "Hardware counters|counters:|ERROR" "$OUT/under-ncu.txt")" | tee -a "$log"
# What the counters cost: sampling on and off in alternating blocks of one run, three runs.
for run in 1 2 3; do
  step $B/mandelpipe --frames 3000 --no-vsync --width 1600 --height 900 --overlay --counters-ab
done
tar czf "$OUT/logs.tgz" -C "$OUT" log.txt bench-counters.json exp-fma-grouping.json \
  exp-sin-overlap.json bench-nobody.md sidecar.json under-ncu.txt 2>/dev/null
rm -f "$OUT/bench-nobody.md" "$OUT/exp-fma-grouping.json" "$OUT/exp-sin-overlap.json" \
  "$OUT/under-ncu.txt"
grep -E "^counters A/B|rc=|FAILED|Hardware counters|under ncu" "$log" | head -40
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def cell(c, m, pipe):
    v = c["pipes"].get(pipe) if c and not c.get("unavailable") else None
    w = m.get(pipe)
    if v is None or w is None: return "   -/-   "
    return "%5.1f/%5.1f" % (w, v)
print("model/counters, % busy over the measured SM cycles")
print("%-5s %-10s %-12s %-12s %-12s %-12s %-7s %s" % ("view", "variant", "issue", "FMA", "XU", "ALU", "GHz", "instr ctr/model"))
for r in json.load(open(out + "/bench-counters.json"))["rows"]:
    c, m = r.get("counters"), r.get("model_busy", {})
    if c and c.get("unavailable"):
        print(r["view"], r["variant"], "n/a:", c["unavailable"]); continue
    print("%-5s %-10s %-12s %-12s %-12s %-12s %-7.3f %.4g" % (r["view"], r["variant"], cell(c, m, "issue"), cell(c, m, "FMA"), cell(c, m, "XU"), cell(c, m, "ALU"), c["clock_ghz"], c["warp_instructions"]))
for e in ("fma-grouping", "sin-overlap"):
    for r in json.load(open("/tmp/exp-%s.json" % e))["rows"]:
        c, m = r.get("counters"), r.get("model_busy", {})
        if not c: continue
        print("%-40s issue %s FMA %s XU %s" % (r["label"][:40], cell(c, m, "issue"), cell(c, m, "FMA"), cell(c, m, "XU")))
PY
