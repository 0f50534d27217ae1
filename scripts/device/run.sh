#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh):
# every GPU test, the SASS, a headless render, the window as users drive it, the hardware
# counters (as root, as nobody, refused, under ncu), what the overlay and the counters cost,
# the bench and the experiments (long.sh has the longer runs). Everything lands in
# $OUT/logs.tgz; four pictures worth a look, and log.txt beside it, which ends with the table of
# every run's exit code. Exits non-zero if any run failed (after all of them ran).
set -u
A=/tmp/all
source "$(dirname "$0")/common.sh"
grep -i profiling /proc/driver/nvidia/params | tee -a "$log"
for t in $B/*_tests; do step $t; done
cuobjdump -sass $B/mandelpipe >"$A/sass.txt" 2>&1
record "cuobjdump -sass mandelpipe" $?
step $B/mandelpipe render --out "$A/render.png" --width 1920 --height 1080 --variant fma4-sin \
  --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096
step $B/mandelpipe --frames 120 --screenshot "$A/window.png" --width 1600 --height 900 --no-vsync \
  --overlay --sass --divergence --variant sin-ratio
# The panel as a new user meets it, at the two sizes people use (nothing may be cut or covered).
step $B/mandelpipe --frames 60 --screenshot "$OUT/window-720.png" --width 1280 --height 720 --no-vsync
step $B/mandelpipe --frames 60 --screenshot "$OUT/window-1080.png" --width 1920 --height 1080 \
  --no-vsync --overlay
# The overlay's pipe rows beside the panel at UI x1.25 on 1280x720, its columns narrowed to the
# room there (nothing over the panel).
mkdir -p "$A/ui125/mandelpipe" && echo '{"ui_scale": 1.25}' >"$A/ui125/mandelpipe/settings.json"
step env XDG_CONFIG_HOME="$A/ui125" $B/mandelpipe --frames 60 --screenshot "$OUT/window-720-ui125.png" \
  --width 1280 --height 720 --no-vsync --overlay
# A heavy render in one band (seconds on an H100): its progress on stderr (the log) at least once a
# second, in runs of tile rows.
step $B/mandelpipe render --out "$A/render-heavy.png" --center -0.2,0 --span 0.3 --iters 2000000
# The divergence view at view B, without and with lane refill: what refill cures.
for v in fma4-x16 fma4-rows fma4-refill; do
  step $B/mandelpipe --frames 30 --screenshot "$OUT/divergence-$v.png" --width 1600 --height 900 \
    --no-vsync --divergence --variant $v --center -0.743643887037151,0.131825904205330 \
    --span 0.005 --iters 4096
done
# fma4-cycles's divergence view at the starting view: lanes whose orbit repeated leave their warp.
step $B/mandelpipe --frames 30 --screenshot "$A/divergence-cycles.png" --width 1600 --height 900 \
  --no-vsync --divergence --variant fma4-cycles
# The experiments window as a speaker opens it, run and plotted on the GPU.
step $B/mandelpipe --frames 30 --screenshot "$A/window-experiment.png" --width 1600 \
  --height 900 --no-vsync --open-experiment warps-per-smsp
# The window as a user opens it, counters live beside the model, at view B.
step $B/mandelpipe --frames 400 --no-vsync --overlay --width 1600 --height 900 --variant fma4 \
  --center -0.743643887037151,0.131825904205330 --span 0.005 --iters 4096 \
  --screenshot "$A/window-counters.png"
# F12 as a user presses it: the window's PNG and its sidecar, which gets a table of every
# variant at this view (compared on the spot: none was made before), counters and all.
if [ -x $B/xtest-keys ]; then
  mkdir -p "$A/capture"
  $B/mandelpipe --frames 3000 --no-vsync --width 1280 --height 720 --overlay \
    --capture-dir "$A/capture" >>"$log" 2>&1 &
  app=$!
  sleep 6
  $B/xtest-keys F12 >>"$log" 2>&1
  wait $app
  rc=$?
  record "F12 capture" $rc
  echo "   F12 capture rc=$rc: $(ls "$A/capture" | tr '\n' ' ')" | tee -a "$log"
  python3 -c "import json,glob;j=json.load(open(glob.glob('$A/capture/*.json')[0]));c=j['compare'];print('   sidecar:',j['device']['name'],'clock',round(j['clock_ghz'],3),'GHz,',len(c['rows']),'variants compared, with counters:',sum(1 for r in c['rows'] if r.get('counters') and not r['counters']['unavailable']),'|',j['counters_source'][:100])" 2>&1 | tee -a "$log"
  # sin-ratio's "measure the balance" clicked in the panel (where the default layout puts it).
  $B/mandelpipe --frames 2500 --no-vsync --width 1600 --height 900 --variant sin-ratio \
    --screenshot "$A/window-sweep.png" >>"$log" 2>&1 &
  app=$!
  sleep 6
  $B/xtest-keys click 340 329 >>"$log" 2>&1
  wait $app
  rc=$?
  record "sweep click" $rc
  echo "   sweep click rc=$rc" | tee -a "$log"
fi
# Counters as an ordinary user: the driver here lets every user profile (RmProfilingAdminOnly 0).
mkdir -p /tmp/nobody && chmod 777 /tmp/nobody
chmod -R a+rX "$B" .device
echo "== as nobody" | tee -a "$log"
setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
  $B/mandelpipe --frames 300 --no-vsync --overlay --width 1280 --height 720 \
  --screenshot /tmp/nobody/window-nobody.png >>"$log" 2>&1
rc=$?
record "window as nobody" $rc
echo "   rc=$rc" | tee -a "$log"
cp /tmp/nobody/window-nobody.png "$A/" 2>/dev/null
setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
  $B/mandelpipe bench --variant fma4 --counters --format md >"$A/bench-nobody.md" 2>>"$log"
rc=$?
record "bench as nobody" $rc
echo "   nobody bench rc=$rc" | tee -a "$log"
# The refusal as a user without profiling rights meets it (CUPTI's answer injected).
MANDELPIPE_COUNTERS_REFUSE=enable step $B/mandelpipe --frames 60 --no-vsync --overlay \
  --width 1280 --height 720 --screenshot "$A/window-refused.png"
# Another profiler holding the counters: ncu around the bench (its first two kernels profiled).
echo "== under ncu" | tee -a "$log"
timeout 180 ncu --metrics smsp__inst_executed.sum -c 2 $B/mandelpipe bench --variant fma4 \
  --counters --frames 10 --format md >"$A/under-ncu.txt" 2>&1
rc=$?
record "bench under ncu" $rc
echo "   rc=$rc: $(grep -m1 -E "Hardware counters|ERROR" "$A/under-ncu.txt")" | tee -a "$log"
# What the overlay and the counters cost: each on and off in alternating blocks of frames of
# one run, so that drift in the frame time hits both alike; three times, to see the spread.
for ab in overlay-ab counters-ab; do
  for run in 1 2 3; do
    step $B/mandelpipe --frames 3000 --no-vsync --width 1600 --height 900 --overlay --$ab
  done
done
echo "== bench" | tee -a "$log"
$B/mandelpipe bench --variant all --present --sin-sweep --format md >"$A/bench.md" 2>>"$log"
record "bench --present --sin-sweep" $?
$B/mandelpipe bench --variant all --tile-order rows --format md >"$A/bench-rows.md" 2>>"$log"
record "bench --tile-order rows" $?
$B/mandelpipe bench --variant all --counters --format json >"$A/bench-counters.json" 2>>"$log"
record "bench --counters" $?
echo "== experiments" | tee -a "$log"
# The catalogue, the one list: a line each, the name first.
list=$($B/mandelpipe experiment --list)
record "experiment --list" $?
experiments=$(awk '{print $1}' <<<"$list")
for e in $experiments; do
  timeout 120 $B/mandelpipe experiment $e >>"$A/experiments.md" 2>>"$log"
  rc=$?
  record "experiment $e" $rc
  echo "   $e rc=$rc" | tee -a "$log"
done
for e in $experiments; do
  timeout 120 $B/mandelpipe experiment $e --counters --format json >"$A/exp-$e.json" 2>>"$log"
  record "experiment $e --counters" $?
done
# Without a GPU the command prints the model's prediction for the sm_90 build (exit 3: the
# measurement needs one): on an sm_90 GPU that is the predicted column of the run above, row for
# row.
for e in $experiments; do
  CUDA_VISIBLE_DEVICES= timeout 60 $B/mandelpipe experiment $e >"$A/predict-$e.md" 2>>"$log"
  rc=$?
  ((rc == 3)) && rc=0
  record "experiment $e without a GPU: the prediction" $rc
done
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)
python3 - "$A" "$cc" $experiments <<'PY' | tee -a "$log"
import json, sys
a, cc, names = sys.argv[1], sys.argv[2].strip(), sys.argv[3:]
if cc != "9.0":
    print("prediction without a GPU: not compared (the GPU is sm_%s, the prediction sm_90's)" % cc.replace(".", ""))
    sys.exit(0)
def number(text):
    t = text.strip()
    return float(t[:-2]) * 1e6 if t.endswith(" M") else float(t)
differs = False
for e in names:
    rows = {}
    for line in open("%s/predict-%s.md" % (a, e)):
        f = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(f) == 4 and f[0] not in ("what", "---") and not f[1].startswith("-"):
            rows[f[0]] = number(f[1])
    measured = {r["label"]: r["predicted"] for r in json.load(open("%s/exp-%s.json" % (a, e)))["rows"]}
    off = [k for k, v in rows.items()
           if k not in measured or measured[k] is None or abs(v - measured[k]) > 0.01 * abs(measured[k])]
    print("prediction without a GPU, %s: %s" % (e,
          "none (it rests on a measurement)" if not rows else
          "%d rows as the measured run predicts" % len(rows) if not off else
          "DIFFERS in " + ", ".join(off)))
    differs = differs or bool(off)
sys.exit(1 if differs else 0)
PY
record "experiments' prediction without a GPU is the measured run's" "${PIPESTATUS[0]}"
cp "$log" "$A/"
tar czf "$OUT/logs.tgz" -C $A .
grep -E "differ|rc=|FAILED|Failure|Which is|A/B|under ncu|sidecar" "$log" | head -70
cat "$A/bench.md" | grep -E "^\| [ABC] "
python3 - "$A" $experiments <<'PY'
import json, sys
a = sys.argv[1]
def cell(c, m, pipe):
    v = c["pipes"].get(pipe) if c and not c.get("unavailable") else None
    w = m.get(pipe)
    return "   -/-   " if v is None or w is None else "%5.1f/%5.1f" % (w, v)
print("model/counters, % busy over the measured SM cycles; instructions outside the modelled loop")
for r in json.load(open(a + "/bench-counters.json"))["rows"]:
    c, m = r.get("counters"), r.get("model_busy", {})
    if not c or c.get("unavailable"):
        print(r["view"], r["variant"], "n/a:", c and c["unavailable"]); continue
    out = 100 * (c["warp_instructions"] - r["model_instructions"]) / c["warp_instructions"]
    print("%-2s %-10s issue %s FMA %s XU %s ALU %s %.3f GHz %5.1f%%" % (r["view"], r["variant"], cell(c, m, "issue"), cell(c, m, "FMA"), cell(c, m, "XU"), cell(c, m, "ALU"), c["clock_ghz"], out))
for e in sys.argv[2:]:
    try:
        rows = json.load(open(a + "/exp-%s.json" % e))["rows"]
    except (OSError, ValueError) as err:
        print(e, "no JSON:", err); continue
    for r in rows:
        c, m = r.get("counters"), r.get("model_busy", {})
        if c: print("%-34s issue %s FMA %s XU %s" % (r["label"][:34], cell(c, m, "issue"), cell(c, m, "FMA"), cell(c, m, "XU")))
PY
finish
