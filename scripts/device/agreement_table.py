#!/usr/bin/env python3
# The agreement table of bench --counters --format json (scripts/device/whole-kernel.sh): variant x
# view, the whole-kernel model's instructions, issue and each pipe against the counters', and how
# many rows meet the targets (instructions within 3%, issue and each pipe within 3 points).
#   python3 scripts/device/agreement_table.py BENCH.json
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
