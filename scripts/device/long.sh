#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh), the
# long runs beside run.sh: bench in first-frame order at A, B and C, at views of
# our own choosing and along a zoom path, with the limit columns; a 32768x32768 still; the window
# for 10,000 frames of random input. Logs in $OUT/logs.tgz; $OUT/log.txt ends with the figures and
# the table of every run's exit code. Exits non-zero if any run failed.
set -u
A=/tmp/long
source "$(dirname "$0")/common.sh"
# Views chosen as a user exploring would meet them: seahorse and elephant valleys, the period-3
# minibrot on the needle, a spiral, a sparse view where most pixels escape within a few hundred
# steps, and one outside the set where nearly all escape in a few (short frames).
views=(--view -0.745,0.113,0.01,2048 --view 0.2725,0.0055,0.012,4096
       --view -1.7548776662,0,0.04,4096 --view -0.7746806106,-0.1374168856,0.002,8192
       --view 0.9,0.9,4,1000 --view 2,2,4,1000)
$B/mandelpipe bench --variant all --tile-order rows --format csv >"$A/abc.csv" 2>>"$log"
rc=$?
record "bench A/B/C" $rc
echo "   A/B/C rc=$rc" | tee -a "$log"
$B/mandelpipe bench --variant all "${views[@]}" --format csv >"$A/views.csv" 2>>"$log"
rc=$?
record "bench views" $rc
echo "   views rc=$rc" | tee -a "$log"
$B/mandelpipe bench --variant all --zoom -0.10109636384562,0.95628651080914 --from 3 --to 2e-4 \
  --steps 20 --iters 2048 --format json >"$A/zoom.json" 2>>"$log"
rc=$?
record "bench zoom" $rc
echo "   zoom rc=$rc" | tee -a "$log"
# A big still in bands, streamed into the PNG: its time and peak memory.
echo "== render 32768x32768" | tee -a "$log"
python3 -c "import resource,subprocess,sys,time; t=time.time(); r=subprocess.run(sys.argv[1:]); print('   rc=%d wall %.1f s, peak RSS %.0f MiB' % (r.returncode, time.time()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024)); sys.exit(r.returncode)" \
  $B/mandelpipe render --width 32768 --height 32768 --variant fma4-x16 --out "$A/big.png" 2>>"$log" | tee -a "$log"
record "render 32768x32768" "${PIPESTATUS[0]}"
ls -la "$A/big.png" "$A/big.json" 2>&1 | tee -a "$log"; rm -f "$A/big.png"
# The window for 10,000 frames of random input on the CUDA path: memory flat, no error.
if [ -x $B/xtest-keys ]; then
  step bash scripts/soak.sh --frames 10000 --cuda --seed 42 --bin $B/mandelpipe --keys $B/xtest-keys
fi
cp "$log" "$A/"
tar czf "$OUT/logs.tgz" -C $A .
grep -E "differ|rc=|FAILED|Failure|Which is" "$log" | head -60
python3 - "$A" <<'PY'
import csv, json, sys
a = sys.argv[1]
print("view       variant       kernel ms  limit ms (free)   % limit (free)  SIMT   % bound")
def show(rows):
    for r in rows:
        print("%-10s %-12s %9.3f %8.3f (%7.3f) %6.1f (%5.1f) %5.1f %6.1f" % (r["view"][:10], r["variant"], float(r["kernel_ms"]), float(r["limit_ms"] or 0), float(r["limit_free_ms"] or 0), float(r["pct_of_limit"] or 0), float(r["pct_of_limit_free"] or 0), 100 * float(r["simt_efficiency"]), float(r["pct_of_bound"])))
for f in ("abc.csv", "views.csv"):
    try: show(list(csv.DictReader(open(a + "/" + f))))
    except Exception as e: print(f, e)
try:
    z = json.load(open(a + "/zoom.json"))
    for t in z["zoom_totals"]:
        print("zoom total %-12s %9.3f %8.3f (%7.3f) %6.1f" % (t["variant"], t["kernel_ms"], t["limit_ms"], t["limit_free_ms"], 100 * t["limit_ms"] / t["kernel_ms"]))
except Exception as e: print("zoom", e)
PY
finish
