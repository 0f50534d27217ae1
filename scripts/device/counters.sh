#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh): what the
# hardware counters promise. `bench --counters` for every variant, three runs in a row, over the
# fixed views A, B and C, ten views of our own and a zoom path of 30 views, with the rows whose
# counters were withheld counted (n/a and its reason, "cut short" apart); then the window at
# 1920x1080 with the overlay for 600 frames, three times, with the counter thread's share of a
# core from its exit summary.
#   bash scripts/device/counters.sh [bench|window|all] [RUN...]   (default: all 1 2 3)
# A run of the bench takes minutes: where one device call cannot hold three, call it once a run
# (`bench 1`, `bench 2`, `bench 3`). The window's share before a change: carry that build into
# another folder and name it, MP_CARRY_DIR=.carry-main bash scripts/device/counters.sh window.
# Logs in $OUT/logs.tgz; $OUT/log.txt ends with the table and every run's exit code.
set -u
A=/tmp/counters
what=${1:-all}
shift || true
runs=("$@")
((${#runs[@]})) || runs=(1 2 3)
source "$(dirname "$0")/common.sh"
# Seahorse and elephant valleys, the period-3 minibrot on the needle, a spiral, a sparse view and
# one outside the set (long.sh's), then a deeper seahorse, the antenna, a mixed view of short
# and long orbits and a view near the main cardioid's cusp.
views=(--view -0.745,0.113,0.01,2048 --view 0.2725,0.0055,0.012,4096
       --view -1.7548776662,0,0.04,4096 --view -0.7746806106,-0.1374168856,0.002,8192
       --view 0.9,0.9,4,1000 --view 2,2,4,1000
       --view -0.74529,0.11307,0.0008,8192 --view -1.9,0,0.2,2048
       --view 0.3,0.5,0.5,1000 --view 0.25,0,0.01,4096)
zoom=(--zoom -0.10109636384562,0.95628651080914 --from 3 --to 2e-4 --steps 30 --iters 2048)
# One bench command, its JSON kept, its exit code and wall time in the log.
bench() {
  local name=$1
  shift
  local t=$SECONDS
  timeout 590 $B/mandelpipe bench --variant all --counters --format json "$@" \
    >"$A/$name.json" 2>>"$log"
  local rc=$?
  record "bench --counters $name" $rc
  echo "   bench $name rc=$rc, $((SECONDS - t)) s" | tee -a "$log"
}
if [[ $what == bench || $what == all ]]; then
  for run in "${runs[@]}"; do
    echo "== bench --counters, run $run" | tee -a "$log"
    bench "abc-$run"
    bench "views-$run" --width 1920 --height 1080 "${views[@]}" "${zoom[@]}"
  done
fi
if [[ $what == window || $what == all ]]; then
  for run in "${runs[@]}"; do
    step $B/mandelpipe --frames 600 --width 1920 --height 1080 --overlay
    grep -E "^frames [0-9]+" "$log" | tail -1 >"$A/window-$run.txt"
  done
fi
cp "$log" "$A/"
tar czf "$OUT/logs.tgz" -C $A .
python3 - "$A" <<'PY'
import glob, json, os, re, sys
a = sys.argv[1]
files = sorted(glob.glob(a + "/*.json"))
if files:
    print("== bench --counters: rows, rows with counter figures, rows withheld (n/a), of them cut short")
for f in files:
    try:
        j = json.load(open(f))
    except (OSError, ValueError) as e:
        print("%-12s no JSON: %s" % (os.path.basename(f), e)); continue
    rows = j.get("rows", []) + j.get("deep", [])
    counted = [r for r in rows if r.get("counters")]
    withheld = [r for r in counted if r["counters"].get("unavailable")]
    cut = [r for r in withheld if "cut short" in r["counters"]["unavailable"]]
    print("%-12s rows %4d  figures %4d  withheld %3d  cut short %3d" % (
        os.path.basename(f)[:-5], len(rows), len(counted) - len(withheld), len(withheld), len(cut)))
    for r in withheld[:5]:
        print("   n/a: %s %s: %s" % (r.get("view"), r.get("variant"), r["counters"]["unavailable"][:110]))
windows = sorted(glob.glob(a + "/window-*.txt"))
if windows:
    print("== window 1920x1080, 600 frames, overlay: the counter thread's share of a core (exit summary)")
for f in windows:
    line = open(f).read()
    share = re.search(r"counter thread ([0-9.]+)% of a core", line)
    frame = re.search(r"mean frame ([0-9.]+) ms", line)
    print("%-12s %s  (mean frame %s ms)" % (os.path.basename(f)[:-4],
          share.group(1) + "%" if share else "no share in: " + line.strip()[:80],
          frame.group(1) if frame else "?"))
PY
finish
