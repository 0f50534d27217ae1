#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh): the whole-kernel
# model (docs/model.md, "The whole kernel") against the hardware counters.
#   bash scripts/device/whole-kernel.sh [agreement|offline [JSON]|example|experiment|test|all]
#   (default: all). VARIANT=NAME runs agreement for that variant alone (default: every one).
# agreement: `bench --counters` for every variant at 1920x1080 over views A, B and C and six of
#   varied orbit lengths (two sparse), then the agreement table: variant x view, instructions, issue
#   and each pipe, model against counters, and how many rows meet the targets (instructions within
#   3%, issue and each pipe within 3 points).
# example: the worked example of docs/model.md: fma4-rows at view A's place, 1920x1080: each
#   part's instructions, the whole kernel's bound and the counters' figures, to paste there.
#   The FMA pipe is compared as a whole: the model does not split it into fmaheavy and fmalite
#   (docs/model.md, "The whole kernel"), so those columns show "-" for the model and no target.
# offline [JSON]: the model recomputed without the GPU for each row of a recorded agreement (JSON,
#   else this run's $A/agreement.json), from the CPU reference's step counts and this build's SASS
#   (cuobjdump of the carried mandelpipe): tests/tools/whole_kernel_agree.cpp. Its instructions
#   should be the bench's own within a few tenths of a per cent (the CPU's counts differ from the
#   GPU's in a few pixels; "steps" says by how much). Then fma4's pieces at view 7 and the carried
#   build's SASS ($OUT/logs.tgz: sm_90-carried.sass.gz), to read the queue kernels' parts offline.
# experiment: `experiment kernel-overhead --counters`.
# test: the GPU test that the model's instructions are within 3% of the counters' for every
#   variant at one view (program_tests, WholeKernelModelMeetsTheCounters).
# Logs in $OUT/logs.tgz; $OUT/log.txt ends with the table and every run's exit code.
set -u
A=/tmp/whole-kernel
what=${1:-all}
source "$(dirname "$0")/common.sh"
# A, B and C at 1920x1080, then from long orbits to short: a period-3 minibrot on the needle,
# seahorse valley deeper, a spiral, the antenna, the set small in the frame and outside it.
views=(--view -0.5,0,3,1024 --view -0.743643887037151,0.131825904205330,0.005,4096
       --view -0.75,0,0.05,16384
       --view -1.7548776662,0,0.04,4096 --view -0.74529,0.11307,0.0008,8192
       --view -0.7746806106,-0.1374168856,0.002,8192 --view -1.9,0,0.2,2048
       --view -0.5,0,12,1024 --view 0.9,0.9,4,1000)
if [[ $what == agreement || $what == all ]]; then
  echo "== bench --counters, 9 views at 1920x1080" | tee -a "$log"
  timeout 590 $B/mandelpipe bench --variant "${VARIANT:-all}" --counters --frames 10 --width 1920 \
    --height 1080 --format json "${views[@]}" >"$A/agreement.json" 2>>"$log"
  record "bench --counters (agreement)" $?
  python3 - "$A/agreement.json" <<'PY' | tee -a "$log"
import json, sys
try:
    rows = json.load(open(sys.argv[1]))["rows"]
except (OSError, ValueError, KeyError) as e:
    print("no JSON: %s" % e); sys.exit(0)
pipes = ["issue", "FMA", "fmaheavy", "fmalite", "ALU", "XU", "FP64"]
print("== agreement: model / counters (model - counters); instructions in %, pipes in points")
print("%-28s %-11s %22s %7s %s" % ("view", "variant", "instructions m / c", "diff", "  ".join(pipes)))
met = total = 0
worst = {}
for r in rows:
    w, c = r.get("whole_kernel"), r.get("counters") or {}
    view = "%s %s,%s,%s" % (r["view"], r["center"][0][:10], r["center"][1][:10], r["span"][:8])
    if not w or "unusable" in w or c.get("unavailable"):
        why = (w or {}).get("unusable") or c.get("unavailable") or "no figures"
        print("%-28s %-11s n/a: %s" % (view[:28], r["variant"], why[:90])); continue
    total += 1
    counted = c["warp_instructions"]
    d = 100 * (w["instructions"] - counted) / counted
    cells, ok = [], abs(d) <= 3
    worst["instructions"] = max(worst.get("instructions", 0), abs(d))
    for p in pipes:
        m, k = w["busy"].get(p), c["pipes"].get(p)
        if m is None or k is None:
            cells.append("-"); continue
        cells.append("%.1f/%.1f(%+.1f)" % (m, k, m - k))
        ok = ok and abs(m - k) <= 3
        worst[p] = max(worst.get(p, 0), abs(m - k))
    met += ok
    print("%-28s %-11s %10.4g / %-10.4g %+6.1f%% %s  out of the loop %.1f%%" % (
        view[:28], r["variant"], w["instructions"], counted, d, " ".join(cells),
        100 * w["outside_step_loop"]))
print("== %d of %d rows meet every target; the largest differences: %s" % (
    met, total, ", ".join("%s %.1f" % kv for kv in worst.items())))
notes = {n for r in rows for n in (r.get("whole_kernel") or {}).get("not_modelled", [])}
for n in sorted(notes):
    print("== not modelled: " + n)
PY
fi
if [[ $what == offline || $what == all ]]; then
  step $B/whole_kernel_agree "${2:-$A/agreement.json}" --sass "$B/mandelpipe" --first-frames
  # The pieces of a queue variant at the sparse view -1.9,0 (view 7), and the SASS they are cut
  # from, for reading the model's parts offline where the captured SASS is older than the kernels.
  step $B/whole_kernel_agree "${2:-$A/agreement.json}" --sass "$B/mandelpipe" --first-frames --view "view 7" \
    --variant fma4 --pieces
  cuobjdump -sass -arch sm_90 "$B/mandelpipe" 2>>"$log" | gzip >"$A/sm_90-carried.sass.gz"
  record "cuobjdump of the carried build" "${PIPESTATUS[0]}"
fi
if [[ $what == example || $what == all ]]; then
  echo "== the worked example: fma4-rows at view A's place, 1920x1080" | tee -a "$log"
  timeout 300 $B/mandelpipe bench --variant fma4-rows --counters --frames 10 --width 1920 \
    --height 1080 --view -0.5,0,3,1024 --format json >"$A/example.json" 2>>"$log"
  record "bench --counters (example)" $?
  python3 - "$A/example.json" <<'PY' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
w, c = r["whole_kernel"], r["counters"]
print("view %s,%s span %s iters %s, %dx%d, variant %s" % (r["center"][0], r["center"][1], r["span"],
      r["iters"], r["width"], r["height"], r["variant"]))
print("measured: SM cycles %.6g, kernel %.4f ms, warp-steps %.6g" % (
      w["measured_sm_cycles"], w["measured_kernel_ms"], w["measured_warp_steps"]))
for part in ["step loop", "per block", "per pixel", "per launch"]:
    n = w["parts"][part]
    print("part %-10s %.6g warp-instructions (%.1f%%)" % (part, n, 100 * n / w["instructions"]))
print("whole kernel %.6g warp-instructions, outside the step loop %.1f%%" % (
      w["instructions"], 100 * w["outside_step_loop"]))
print("whole kernel bound %.6g SM cycles (%s), %.1f%% of the measured cycles" % (
      w["bound_max_cycles"], w["limiting_pipe"], w["pct_of_bound"]))
print("step loop alone (the model before): %.6g instructions, bound %.6g cycles (%s), %.1f%%" % (
      r["model_instructions"], r["model"]["bound_max_cycles"], r["model"]["limiting_pipe"],
      r["model"]["pct_of_bound"]))
print("busy by the whole kernel: " + ", ".join("%s %.1f%%" % kv for kv in w["busy"].items()))
if c.get("unavailable"):
    print("counters: n/a: " + c["unavailable"])
else:
    print("counters: %.6g warp-instructions; " % c["warp_instructions"] +
          ", ".join("%s %.1f%%" % kv for kv in c["pipes"].items() if kv[1] is not None))
for u in w["unplaced"]:
    print("not placed exactly: " + u)
PY
fi
if [[ $what == experiment || $what == all ]]; then
  step $B/mandelpipe experiment kernel-overhead --counters
fi
if [[ $what == test || $what == all ]]; then
  step $B/program_tests --gtest_filter='*WholeKernelModel*'
fi
cp "$log" "$A/"
tar czf "$OUT/logs.tgz" -C $A .
finish
