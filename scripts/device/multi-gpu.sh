#!/bin/bash
# Runs on a GPU machine of two or more GPUs (nvidia-h100-x2, -x4) over a carried build
# (carry.sh): render on every GPU of the host (issue 33). Each check is a row of the outcome
# table (non-zero where it failed); log.txt has the figures, $OUT/multi-gpu.tgz the outputs.
#  1. The band queue: an 8192x8192 still (fma4-rows, 4096 iterations, 32 bands) on GPU 0 alone and
#     on all of them: the PNGs byte for byte the same; the sidecar names every GPU and its bands.
#  2. The frame queue: a 24-frame 3840x2160 zoom on GPU 0 and on all: every frame the same.
#  3. A GPU failing mid-render (the test hook MANDELPIPE_TEST_FAIL_WORKER=1:3: the second GPU's
#     worker fails as a CUDA error would, after 3 bands): the still again, the same bytes, stderr
#     and the sidecar say which GPU failed and which band the others rendered again.
#  4. Throughput where frames cost >= 100 ms of GPU each (a 4K zoom at bench's view C, where
#     almost every pixel runs all its steps, at 200,000 iterations, 24 frames): wall time on 1
#     GPU, on 2 and on 4 where there are; targets >= 1.9x one GPU's on 2, >= 3.7x on 4.
#  5. The same frames through MPI, one GPU a rank (mpirun -np 2, where this machine has Open
#     MPI's mpirun): the same bytes, and the wall time within 5% of --devices 0,1's.
#  6. bench --devices all --format json: a report per GPU.
set -u
A=/tmp/multi-gpu
source "$(dirname "$0")/common.sh"
n=$(nvidia-smi -L | grep -c '^GPU ')
echo "GPUs: $n, cores: $(nproc)" | tee -a "$log"
if ((n < 2)); then
  echo "this script needs two GPUs or more (nvidia-h100-x2)" | tee -a "$log"
  record "two GPUs or more" 1
  finish
fi
M=$B/mandelpipe
# A render in $A/NAME/ (common.sh's timed), what it wrote and any failure in the log.
render_in() {
  timed "$@"
  grep -E "^wrote |failed|error" "$A/$1.txt" | tee -a "$log"
}
# Whether the two folders hold the same PNGs, byte for byte (and as many).
same_pngs() {
  local a=$1 b=$2 f count=0
  for f in "$A/$a"/*.png "$A/$a"/*/*.png; do
    [ -e "$f" ] || continue
    cmp -s "$f" "$A/$b/${f#"$A/$a/"}" || return 1
    count=$((count + 1))
  done
  ((count > 0))
}
check() {  # NAME, then a command whose exit code is the outcome
  local name=$1
  shift
  "$@"
  local rc=$?
  record "$name" $rc
  echo "== $name: rc=$rc" | tee -a "$log"
}
still=(render --width 8192 --height 8192 --iters 4096 --variant fma4-rows
  --center -0.16070135,1.0375665 --span 0.02 --out still.png)
render_in still-gpu0 $M "${still[@]}" --devices 0
render_in still-all $M "${still[@]}" --devices all
check "the still on every GPU is the still on GPU 0" same_pngs still-gpu0 still-all
python3 - "$A/still-all/still.json" <<'EOF' | tee -a "$log"
import json, sys
j = json.load(open(sys.argv[1]))
for w in j["workers"]:
    print(f"  {w['worker']}: {w['bands']} bands, {w['compute_ms']:.0f} ms of kernels")
print("  bands by worker:", {k: len(v) for k, v in j["rendered_on"].items()})
EOF
sequence=(render --width 3840 --height 2160 --iters 4096 --center -0.5,0 --span 3
  --zoom-to -0.7436447860,0.1318252536,0.001 --frames 24 --out seq)
render_in seq-gpu0 $M "${sequence[@]}" --devices 0
render_in seq-all $M "${sequence[@]}" --devices all
check "every frame on every GPU is the frame on GPU 0" same_pngs seq-gpu0 seq-all
render_in still-failure env MANDELPIPE_TEST_FAIL_WORKER=1:3 $M "${still[@]}" --devices all
check "with GPU 1 failing, the still is the still on GPU 0" same_pngs still-gpu0 still-failure
check "stderr says which GPU failed" grep -q "failed: injected failure" "$A/still-failure.txt"
check "the sidecar names the failure and the band redone" python3 -c "
import json, sys
w = json.load(open('$A/still-failure/still.json'))['workers']
sys.exit(0 if w[1].get('failed') and w[1].get('redone_by_others') else 1)"
# Frames of >= 100 ms of GPU each: bench's view C, most pixels at the limit.
heavy=(render --width 3840 --height 2160 --iters 200000 --variant fma4-rows --center -0.75,0
  --span 0.05 --zoom-to -0.75,0,0.02 --frames 24 --out seq)
render_in heavy-1 $M "${heavy[@]}" --devices 0
render_in heavy-2 $M "${heavy[@]}" --devices 0,1
((n >= 4)) && render_in heavy-4 $M "${heavy[@]}" --devices 0,1,2,3
check "heavy frames: the same on 2 GPUs as on 1" same_pngs heavy-1 heavy-2
python3 - "$A" "$n" <<'EOF' | tee -a "$log"
import json, sys
a, n = sys.argv[1], int(sys.argv[2])
def wall(name):
    return float(open(f"{a}/{name}.ms").read())
frames = json.load(open(f"{a}/heavy-1/seq/frames.json"))["frames"]
gpu = sorted(f["timing"].get("gpu_kernel_ms", 0) for f in frames)
print(f"heavy frames on one GPU: kernel ms median {gpu[len(gpu) // 2]:.0f}, least {gpu[0]:.0f}")
one = wall("heavy-1")
with open(f"{a}/targets.txt", "w") as t:
    for k, target in [(2, 1.9), (4, 3.7)]:
        if k > n:
            continue
        r = one / wall(f"heavy-{k}")
        line = (f"target: {k} GPUs >= {target}x one GPU's throughput: {r:.2f}x "
                f"({one / 1000:.2f} s against {wall(f'heavy-{k}') / 1000:.2f} s)")
        print(line)
        t.write(f"{line} {int(r < target)}\n")
EOF
while read -r line; do record "${line% *}" "${line##* }"; done <"$A/targets.txt"
if command -v mpirun >/dev/null; then
  # Two ranks on this host deal its GPUs between them: one each.
  render_in heavy-mpi2 mpirun --allow-run-as-root -np 2 $M "${heavy[@]}"
  check "heavy frames: the same through two MPI ranks" same_pngs heavy-1 heavy-mpi2
  python3 - "$A" <<'EOF' | tee -a "$log" >"$A/mpi-target.txt"
import sys
a = sys.argv[1]
ranks, devices = (float(open(f"{a}/{n}.ms").read()) for n in ("heavy-mpi2", "heavy-2"))
print(f"target: mpirun -np 2 within 5% of --devices 0,1: {ranks / 1000:.2f} s against "
      f"{devices / 1000:.2f} s {int(ranks > 1.05 * devices)}")
EOF
  while read -r line; do record "${line% *}" "${line##* }"; done <"$A/mpi-target.txt"
else
  echo "no mpirun here (Open MPI's openmpi-bin): the MPI comparison did not run" | tee -a "$log"
  record "mpirun -np 2 against --devices 0,1: not run, no mpirun on this machine" 77
fi
timeout 600 $M bench --devices all --format json --variant fma4-rows >"$A/bench.json" 2>"$A/bench.err"
record "bench --devices all --format json" $?
check "bench: a report per GPU" python3 -c "
import json, sys
j = json.load(open('$A/bench.json'))
sys.exit(0 if len(j['devices']) == $n and all(d['rows'] for d in j['devices']) else 1)"
find "$A" -name '*.png' -delete
tar czf "$OUT/multi-gpu.tgz" -C "$A" .
finish
