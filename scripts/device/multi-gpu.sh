#!/bin/bash
# Runs on a GPU machine of two or more GPUs (nvidia-h100-x2, -x4) over a carried build
# (carry.sh): render on every GPU of the host. Each check is a row of the outcome
# table (non-zero where it failed); log.txt has the figures, $OUT/multi-gpu.tgz the outputs.
#  1. The band queue: an 8192x8192 still (fma4-rows at view C, 50,000 iterations, 16 bands) on
#     GPU 0 alone and on all of them: the PNGs byte for byte the same; the sidecar names every GPU
#     and its bands.
#  2. The frame queue: a 24-frame 3840x2160 zoom on GPU 0 and on all: every frame the same.
#  3. A GPU failing mid-render (the test hook MANDELPIPE_TEST_FAIL_WORKER=1:1: the second GPU's
#     worker fails as a CUDA error would, after 1 band): the still again, the same bytes, stderr
#     and the sidecar say which GPU failed and which band the others rendered again.
#  4. Throughput where frames cost >= 100 ms of GPU each (a 4K zoom at bench's view C, where
#     almost every pixel runs all its steps, at 200,000 iterations, 24 frames, or
#     HEAVY_FRAMES=N: a longer run weighs each process's fixed start and exit less): wall time on 1
#     GPU, on 2 and on 4 where there are; targets >= 1.9x one GPU's throughput on 2, >= 3.7x on
#     4, by the render's wall time (the target's rows: frames.json's run wall_ms, from the
#     render's start to its end, each process's fixed start-up and exit apart) and, beside it, by
#     the process's, with each GPU's busy share of the render and each run's start-up split
#     (frames.json's run startup).
#  5. The same frames through MPI, one GPU a rank, each rank given its share of the cores
#     (mpirun -np 2 --map-by slot:pe=N, as docs/many-hosts.md says; where this machine has Open
#     MPI's mpirun): the same bytes, and the wall time within 5% of --devices 0,1's, by the
#     process's wall time (mpirun's launch and MPI's start included) and by the render's (rank
#     0's); on four GPUs also -np 4 against --devices 0,1,2,3. Under mpirun's default binding (a
#     core a rank) each rank says so in one line.
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
# Whether the two folders hold PNGs of the same pixels (and as many): their rows as filtered,
# inflated, since level 1's encoder (ISA-L) does not always give the same bytes for the same
# pixels (both runs filter each row alike, so equal rows are equal pixels).
same_pngs() {
  python3 - "$A/$1" "$A/$2" <<'EOF'
import glob, os, struct, sys, zlib
def rows(path):
    d = open(path, "rb").read()
    at, idat = 8, b""
    while at < len(d):
        n, = struct.unpack(">I", d[at:at + 4])
        if d[at + 4:at + 8] == b"IDAT":
            idat += d[at + 8:at + 8 + n]
        at += 12 + n
    return d[16:24] + zlib.decompress(idat)
a, b = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(a + "/*.png") + glob.glob(a + "/*/*.png"))
same = all(os.path.exists(b + f[len(a):]) and rows(f) == rows(b + f[len(a):]) for f in files)
sys.exit(0 if files and same else 1)
EOF
}
check() {  # NAME, then a command whose exit code is the outcome
  local name=$1
  shift
  "$@"
  local rc=$?
  record "$name" $rc
  echo "== $name: rc=$rc" | tee -a "$log"
}
# At view C, where most pixels run all their steps: each band takes tens of ms, so that every GPU
# takes several bands whatever the order their renderers came ready in (cheap bands went mostly
# to the first ready, and GPU 1 could end with too few to fail after one).
still=(render --width 8192 --height 8192 --iters 50000 --variant fma4-rows
  --center -0.75,0 --span 0.05 --out still.png)
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
render_in still-failure env MANDELPIPE_TEST_FAIL_WORKER=1:1 $M "${still[@]}" --devices all
check "with GPU 1 failing, the still is the still on GPU 0" same_pngs still-gpu0 still-failure
check "stderr says which GPU failed" grep -q "failed: injected failure" "$A/still-failure.txt"
check "the sidecar names the failure and the band redone" python3 -c "
import json, sys
w = json.load(open('$A/still-failure/still.json'))['workers']
sys.exit(0 if w[1].get('failed') and w[1].get('redone_by_others') else 1)"
# Frames of >= 100 ms of GPU each: bench's view C, most pixels at the limit.
heavy=(render --width 3840 --height 2160 --iters 200000 --variant fma4-rows --center -0.75,0
  --span 0.05 --zoom-to -0.75,0,0.02 --frames "${HEAVY_FRAMES:-24}" --out seq)
render_in heavy-1 $M "${heavy[@]}" --devices 0
render_in heavy-2 $M "${heavy[@]}" --devices 0,1
((n >= 4)) && render_in heavy-4 $M "${heavy[@]}" --devices 0,1,2,3
check "heavy frames: the same on 2 GPUs as on 1" same_pngs heavy-1 heavy-2
python3 - "$A" "$n" <<'EOF' | tee -a "$log"
import json, os, sys
a, n = sys.argv[1], int(sys.argv[2])
def wall(name):
    return float(open(f"{a}/{name}.ms").read())
frames = json.load(open(f"{a}/heavy-1/seq/frames.json"))["frames"]
gpu = sorted(f["timing"].get("gpu_kernel_ms", 0) for f in frames)
print(f"heavy frames on one GPU: kernel ms median {gpu[len(gpu) // 2]:.0f}, least {gpu[0]:.0f}, "
      f"sum {sum(gpu):.0f}")
# Each run: process and render wall, the render's start-up split, each GPU's busy share of the
# render wall (its kernels' time over it: what the hand-over between bands, the tail of the last
# frames and the start leave idle).
print("| run | process s | render s | devices found ms | contexts ms | first band ms | "
      "end (exit) ms | per GPU: bands, kernels s, busy of the render |")
print("|---|---|---|---|---|---|---|---|")
for name in ["heavy-1", "heavy-2", "heavy-4", "heavy-mpi2", "heavy-mpi4"]:
    f = f"{a}/{name}/seq/frames.json"
    if not os.path.exists(f):
        continue
    r = json.load(open(f))["run"]
    st, render = r.get("startup", {}), r["wall_ms"]
    workers = [w for rank in r.get("ranks", [r]) for w in rank["workers"]]
    busy = "; ".join(f"{w['worker'].split(' (')[0]}: {w['bands']}, {w['compute_ms'] / 1000:.2f}, "
                     f"{100 * w['compute_ms'] / render:.0f}%" for w in workers)
    g = lambda k: f"{st[k]:.0f}" if isinstance(st.get(k), (int, float)) else "?"
    end = f"{wall(name) - st['ended_ms']:.0f}" if "ended_ms" in st else "?"
    print(f"| {name} | {wall(name) / 1000:.2f} | {render / 1000:.2f} | {g('devices_probed_ms')} | "
          f"{g('contexts_ready_ms')} | {g('first_band_started_ms')} | {end} | {busy} |")
one = wall("heavy-1")
render_one = json.load(open(f"{a}/heavy-1/seq/frames.json"))["run"]["wall_ms"]
with open(f"{a}/targets.txt", "w") as t:
    for k, target in [(2, 1.9), (4, 3.7)]:
        if k > n:
            continue
        # Throughput: the same frames a second while rendering (from the render's start to its
        # files), each process's fixed start and exit apart; the process's wall beside it.
        render_k = json.load(open(f"{a}/heavy-{k}/seq/frames.json"))["run"]["wall_ms"]
        r = render_one / render_k
        line = (f"target: {k} GPUs >= {target}x one GPU's throughput (frames a second while "
                f"rendering): {r:.2f}x ({render_one / 1000:.2f} s against {render_k / 1000:.2f} s)")
        print(line)
        t.write(f"{line} {int(r < target)}\n")
        print(f"  by the process's wall time (its start and exit included): "
              f"{one / wall(f'heavy-{k}'):.2f}x ({one / 1000:.2f} s against "
              f"{wall(f'heavy-{k}') / 1000:.2f} s)")
EOF
while read -r line; do record "${line% *}" "${line##* }"; done <"$A/targets.txt"
if command -v mpirun >/dev/null; then
  # Under mpirun's default binding (a core a rank, for two ranks) each rank says so.
  render_in mpi-bound mpirun --allow-run-as-root -np 2 $M render --width 64 --height 64 \
    --zoom-to -0.7,0.1,0.1 --frames 2 --out seq
  check "mpirun's default binding: each rank says it has one core" \
    test "$(grep -c 'may run on 1 core' "$A/mpi-bound.txt")" -eq 2
  # Two ranks on this host deal its GPUs between them, one each, and half its cores each.
  render_in heavy-mpi2 mpirun --allow-run-as-root -np 2 --map-by slot:pe=$(($(nproc) / 2)) \
    $M "${heavy[@]}"
  check "heavy frames: the same through two MPI ranks" same_pngs heavy-1 heavy-mpi2
  check "heavy frames through MPI: no rank bound to one core" \
    test "$(grep -c 'may run on 1 core' "$A/heavy-mpi2.txt")" -eq 0
  if ((n >= 4)); then
    render_in heavy-mpi4 mpirun --allow-run-as-root -np 4 --map-by slot:pe=$(($(nproc) / 4)) \
      $M "${heavy[@]}"
    check "heavy frames: the same through four MPI ranks" same_pngs heavy-1 heavy-mpi4
  fi
  # Against --devices of every GPU of the host: two ranks on four GPUs take two each.
  python3 - "$A" "$n" <<'EOF' | tee -a "$log"
import json, os, sys
a, n = sys.argv[1], int(sys.argv[2])
with open(f"{a}/mpi-target.txt", "w") as t:
    for k in (2, 4):
        mpi, dev = f"heavy-mpi{k}", f"heavy-{min(n, 4)}"
        if not os.path.exists(f"{a}/{mpi}/seq/frames.json"):
            continue
        ranks, devices = (float(open(f"{a}/{n}.ms").read()) for n in (mpi, dev))
        rr, rd = (json.load(open(f"{a}/{n}/seq/frames.json"))["run"]["wall_ms"] for n in (mpi, dev))
        threads = [r["encoder_threads"]
                   for r in json.load(open(f"{a}/{mpi}/seq/frames.json"))["run"]["ranks"]]
        print(f"MPI -np {k} against --devices of all {min(n, 4)} by the render's wall time (rank 0's, from its "
              f"render's start: mpirun's launch and MPI's start apart): {rr / 1000:.2f} s against "
              f"{rd / 1000:.2f} s ({100 * (rr / rd - 1):+.1f}%); encoder threads by rank {threads}")
        line = (f"target: mpirun -np {k} within 5% of --devices of all {min(n, 4)} (process wall, mpirun's "
                f"launch included): {ranks / 1000:.2f} s against {devices / 1000:.2f} s")
        print(line)
        t.write(f"{line} {int(ranks > 1.05 * devices)}\n")
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
