#!/bin/bash
# Runs on the GPU machine (device tool) over a carried build in .carry/ (carry.sh): what the
# hardware counters promise. `bench --counters` for every variant, three runs in a row, over the
# fixed views A, B and C, ten views of our own and a zoom path of 30 views, with the rows whose
# counters were withheld counted (n/a and its reason, "cut short" apart); then the window at
# 1920x1080 with the overlay for 600 frames, three times, with the counter thread's share of a
# core from its exit summary.
#   bash scripts/device/counters.sh [bench|window|all] [RUN...]   (default: all 1 2 3)
# With `stalls [bench|window|nobody|all]` instead (default all): the stall reasons (CUPTI PC
# sampling). `bench --stalls` for fma4-x16 and fma4-rows at A, B and C (Markdown and JSON), alone
# and --counters refused beside it (they cannot share a process); the
# window at view C with the overlay and the SASS view open, screenshots of both variants (one
# opened by its flags, one by pressing S as a user does), traced; the refusals: as nobody
# (setpriv), injected, and under ncu; and two fixtures of real records (a reading at view C each,
# with their kernel's SASS) for tests/fixtures/stalls. Logs in $OUT/stalls.tgz, the fixtures and
# screenshots in $OUT.
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
if [[ $what == stalls ]]; then
  part=${runs[0]:-all}
  [[ $part =~ ^[0-9]+$ ]] && part=all
  A=/tmp/stalls
  mkdir -p $A "$OUT/fixtures"
  grep -i profiling /proc/driver/nvidia/params | tee -a "$log"
  C=(--center -0.75,0 --span 0.05 --iters 16384)
  if [[ $part == bench || $part == all ]]; then
    for v in fma4-x16 fma4-rows; do
      MANDELPIPE_STALLS_TRACE=1 timeout 400 $B/mandelpipe bench --variant $v --stalls \
        >"$A/bench-$v.md" 2>"$A/bench-$v.err"
      record "bench --stalls $v (A, B, C)" $?
      timeout 400 $B/mandelpipe bench --variant $v --stalls --format json >"$A/bench-$v.json" \
        2>>"$A/bench-$v.err"
      record "bench --stalls $v json" $?
      # One reading's records at view C, the fixture's part (three readings are recorded).
      rm -f "$A/records-$v.txt"
      MANDELPIPE_STALLS_RECORD="$A/records-$v.txt" timeout 200 $B/mandelpipe bench --variant $v \
        --stalls --view -0.75,0,0.05,16384 >"$A/bench-$v-record.md" 2>>"$A/bench-$v.err"
      record "bench --stalls $v at C, recorded" $?
    done
    # Never beside PM sampling: refused in one line, exit 2.
    $B/mandelpipe bench --variant fma4-x16 --stalls --counters >"$A/bench-both.md" 2>"$A/bench-both.err"
    [ $? -eq 2 ] && grep -q "cannot share one run" "$A/bench-both.err"
    record "bench --stalls --counters refused" $?
    # The fixtures: the first reading's records and the SASS of the kernel most of them were in.
    for v in fma4-x16 fma4-rows; do
      python3 - "$A/records-$v.txt" "$OUT/fixtures/recorded-$v-C.txt" "$B/mandelpipe" <<'PY'
import collections, subprocess, sys
src, dst, binary = sys.argv[1:4]
lines = open(src).read().splitlines()
first = []
for l in lines:
    if l.startswith("reading ") and first:
        break
    first.append(l)
per = collections.Counter()
for l in first:
    if l.startswith("pc "):
        w = l.split()
        # pc CRC OFFSET INDEX COUNT i:n ... NAME (not-issued parts counted again: enough to pick
        # the kernel most samples were in)
        per[w[-1]] += sum(int(p.split(":")[1]) for p in w[5:-1])
kernel = per.most_common(1)[0][0]
sass = subprocess.run(["cuobjdump", "-sass", "-arch", "sm_90", "-fun", kernel, binary],
                      capture_output=True, text=True).stdout
with open(dst, "w") as out:
    out.write("# PC-sampling records of a real GPU (scripts/device/counters.sh stalls): one reading\n"
              "# at view C, then the SASS of %s, the kernel most samples were in.\n" % kernel)
    out.write("\n".join(first) + "\nsass\n" + sass)
print("%s: %d lines of records, kernel %s, %d lines of SASS" % (
    dst, len(first), kernel, sass.count("\n")))
PY
      record "fixture recorded-$v-C.txt" $?
    done
  fi
  if [[ $part == window || $part == all ]]; then
    for v in fma4-x16 fma4-rows; do
      MANDELPIPE_STALLS_TRACE=1 step $B/mandelpipe --frames 400 --width 1920 --height 1080 \
        --no-vsync --variant $v "${C[@]}" --stalls --overlay --sass --screenshot "$OUT/stalls-sass-$v.png"
    done
    # As a user opens it: the window at view C, S pressed, then F12 (its PNG and sidecar).
    mkdir -p "$A/capture"
    $B/mandelpipe --frames 1000000 --width 1920 --height 1080 --no-vsync --variant fma4-x16 \
      "${C[@]}" --stalls --overlay --capture-dir "$A/capture" >"$A/window-keys.txt" 2>&1 &
    pid=$!
    sleep 5
    "$MANDELPIPE_XTEST_KEYS" window mandelpipe s w3000 F12 w2000 Escape >>"$A/window-keys.txt" 2>&1
    wait $pid
    record "window at C: S, F12" $?
    cp "$A"/capture/*.png "$OUT/stalls-keys.png" 2>/dev/null
    # Refused by injection, at enable and at the first start: the overlay's warning line.
    MANDELPIPE_STALLS_REFUSE="pc enable" step $B/mandelpipe --frames 120 --no-vsync --stalls --overlay \
      --sass --width 1600 --height 900 "${C[@]}" --screenshot "$OUT/stalls-refused.png"
    MANDELPIPE_STALLS_REFUSE="pc start" step $B/mandelpipe --frames 120 --no-vsync --stalls --overlay \
      --width 1600 --height 900 "${C[@]}"
  fi
  if [[ $part == nobody || $part == all ]]; then
    # As an ordinary user (refused where the driver restricts profiling to admins).
    mkdir -p /tmp/nobody && chmod 777 /tmp/nobody
    chmod -R a+rX "$B" .device
    setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
      $B/mandelpipe bench --variant fma4 --stalls --view -0.75,0,0.05,16384 \
      >"$A/bench-nobody.md" 2>"$A/bench-nobody.err"
    record "bench --stalls as nobody" $?
    setpriv --reuid=65534 --regid=65534 --clear-groups env XDG_CONFIG_HOME=/tmp/nobody \
      $B/mandelpipe --frames 200 --no-vsync --stalls --overlay --sass --width 1600 --height 900 "${C[@]}" \
      --screenshot /tmp/nobody/stalls-nobody.png >"$A/window-nobody.txt" 2>&1
    record "window as nobody" $?
    cp /tmp/nobody/stalls-nobody.png "$OUT/" 2>/dev/null
    # Another profiler holding the GPU's profiling: ncu around the bench.
    if command -v ncu >/dev/null; then
      timeout 200 ncu --metrics smsp__inst_executed.sum -c 2 $B/mandelpipe bench --variant fma4 \
        --stalls --frames 10 --view -0.75,0,0.05,4096 >"$A/under-ncu.txt" 2>&1
      record "bench --stalls under ncu" $?
    fi
  fi
  cp "$log" "$A/"
  tar czf "$OUT/stalls.tgz" -C $A .
  {
    echo "== the stall lines (stderr of bench and the window)"
    grep -h -E "PC sampling|Stall reasons|stalls:" "$A"/*.err "$A"/*.txt 2>/dev/null | sort | uniq -c |
      sort -rn | head -30
    echo "== bench --stalls: the leading states"
    grep -h -A8 -E "^#### " "$A"/bench-fma4-*.md "$A"/bench-both.md 2>/dev/null | head -120
    echo "== as nobody and under ncu"
    grep -h -E "n/a|Stall reasons" "$A/bench-nobody.md" "$A/bench-nobody.err" "$A/under-ncu.txt" \
      2>/dev/null | head -10
  } | tee -a "$log"
  finish
fi
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
