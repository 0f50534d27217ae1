#!/bin/bash
# Runs on the GPU machine over a carried build (carry.sh): render at the GPU's speed.
# The 16384x16384 still (fma4-rows, 4096 iterations, at a view of our own) at the default PNG
# level and at levels 0, 2, 3 and 6, and a 120-frame 3840x2160 zoom sequence at 4096 iterations,
# each with its wall time (the whole process's, start-up included, and the render's from its
# first band), the GPU's busy share (kernel time over wall time), the colouring and
# compression's CPU time, the peak memory (from the program and /usr/bin/time -v where it is
# there) and the bytes written. The render-speed targets (one GPU, 16 cores): the still <= 1.5 s wall,
# the sequence <= 8 s wall with the GPU busy >= 50% of it; each is a row of the outcome table.
# The split of each run's process wall time, from its record's "startup" (ms after exec): start-up
# (to the first band's start), the render (first band to files written), and the end (process
# exit after that: freeing, the CUDA contexts' teardown); with the GPU's kernels, its colouring
# (the colour kernel) and the pool's PNG work beside them. A 64x64 render gives the fixed cost;
# the sequence again at level 0 (stored) shows the GPU's share where deflate is not the limit, and
# (not in `sequence` mode) with each frame's EXR too.
# log.txt has the short tables; the runs' outputs are in $OUT/render-speed.tgz.
# `render-speed.sh sequence`: the 64x64 render and the two sequences only (a sequence's frames are
# encoded whole by libdeflate, a frame a thread: the table's first lines name the encoder).
set -u
mode=${1:-all}
A=/tmp/render-speed
source "$(dirname "$0")/common.sh"
echo "cores: $(nproc)" | tee -a "$log"
# Without persistence mode the driver starts anew for each process (its start is in every run's).
nvidia-smi --query-gpu=name,persistence_mode,driver_version --format=csv,noheader | tee -a "$log"
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)
# One render in $A/NAME/, with /usr/bin/time's figures where it is there.
measure() {
  local name=$1
  shift
  timed "$name" "${timer[@]}" "$B/mandelpipe" "$@"
  grep -E "^wrote |Maximum resident|Elapsed \(wall" "$A/$name.txt" | tee -a "$log"
}
measure tiny render --width 64 --height 64 --iters 256 --out tiny.png
still=(render --width 16384 --height 16384 --iters 4096 --variant fma4-rows
  --center -0.16070135,1.0375665 --span 0.02)
if [ "$mode" != sequence ]; then
  measure still "${still[@]}" --out still.png
  for level in 0 2 3 6; do
    measure "still-level$level" "${still[@]}" --png-level $level --out still.png
  done
fi
sequence=(render --width 3840 --height 2160 --iters 4096 --center -0.5,0 --span 3
  --zoom-to -0.7436447860,0.1318252536,0.001 --frames 120 --out seq)
measure sequence "${sequence[@]}"
# Stored (level 0): what the sequence takes where deflate's CPU time is not the limit.
measure sequence-level0 "${sequence[@]}" --png-level 0
# With each frame's EXR beside its PNG (the default compression, ZIP): its row's MB are the PNGs'.
[ "$mode" != sequence ] && measure sequence-exr "${sequence[@]}" --exr-frames
# The figures from the files the runs wrote, and the targets.
python3 - "$A" <<'EOF' | tee -a "$log"
import json, os, sys
a = sys.argv[1]
def size(p):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs
               if f.endswith(".png"))
def process_ms(name):
    return float(open(f"{a}/{name}.ms").read())
rows = []
splits = []  # name, process ms, startup record, GPU kernels ms, colour ms, pool ms, write ms
for name, image in [("tiny", "tiny"), ("still", "still"), ("still-level0", "still"),
                    ("still-level2", "still"), ("still-level3", "still"),
                    ("still-level6", "still")]:
    try:
        j = json.load(open(f"{a}/{name}/{image}.json"))
    except OSError:
        continue
    t = j["timing"]
    splits.append((name, process_ms(name), j.get("startup", {}), t.get("gpu_kernel_ms", 0),
                   t.get("gpu_colour_ms", 0), t["colour_encode_ms"], t.get("write_ms", 0),
                   t.get("colour_on", "CPU")))
    if name == "tiny":
        continue
    rows.append((name, process_ms(name), t["wall_ms"], t.get("gpu_kernel_ms", 0), t["colour_encode_ms"],
                 t["peak_rss_mib"], size(f"{a}/{name}"), j["tiling"]["png_level"]))
for name in ["sequence", "sequence-level0", "sequence-exr"]:
    try:
        j = json.load(open(f"{a}/{name}/seq/frames.json"))
    except OSError:
        continue
    r = j["run"]
    ti = j["tiling"]
    print(f"{name}: {ti.get('png_encoder', 'zlib blocks')}; {ti['band_buffers']} band buffers, "
          f"about {ti['working_mib']} MiB working memory, {ti['encoder_threads']} threads")
    rows.append((name, process_ms(name), r["wall_ms"], r.get("gpu_kernel_ms", 0), r["colour_encode_ms"],
                 r["peak_rss_mib"], size(f"{a}/{name}/seq"), j["frames"][0]["png_level"]))
    splits.append((name, process_ms(name), r.get("startup", {}), r.get("gpu_kernel_ms", 0),
                   r.get("gpu_colour_ms", 0), r["colour_encode_ms"],
                   sum(f["timing"].get("write_ms", 0) for f in j["frames"]), r.get("colour_on", "CPU")))
try:
    j = json.load(open(f"{a}/sequence/seq/frames.json"))
    walls = sorted(f["timing"]["wall_ms"] for f in j["frames"])
    gpu = sorted(f["timing"].get("gpu_kernel_ms", 0) for f in j["frames"])
    print(f"sequence frames: wall ms median {walls[len(walls) // 2]:.0f}, longest {walls[-1]:.0f}; "
          f"GPU kernel ms median {gpu[len(gpu) // 2]:.1f}, longest {gpu[-1]:.1f}")
except (OSError, KeyError):
    pass
print("| run | process wall s | render wall s | GPU kernels s | GPU busy (of the process) | "
      "colour+PNG CPU s | peak MiB | PNG MB | level |")
print("|---|---|---|---|---|---|---|---|---|")
for n, wall, render, gpu, enc, rss, b, level in rows:
    print(f"| {n} | {wall / 1000:.2f} | {render / 1000:.2f} | {gpu / 1000:.3f} | "
          f"{100 * gpu / wall:.0f}% | {enc / 1000:.1f} | {rss:.0f} | {b / 1e6:.0f} | {level} |")
print()
print("Where each process's wall time went (ms after exec, from its record's startup; contexts "
      "released: the GPU's let go while the last frames compressed, '?' where that ended after "
      "the record; end: the process's exit after its files, i.e. freeing and what is left of "
      "the CUDA teardown):")
print("| run | process ms | devices found | contexts made | first band started | first band "
      "rendered | contexts released | files written | end (exit) | GPU kernels ms | colour where, "
      "ms | pool (PNG) CPU ms | write ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for n, wall, st, gpu, colour, pool, write, where in splits:
    g = lambda k: f"{st[k]:.0f}" if isinstance(st.get(k), (int, float)) else "?"
    end = f"{wall - st['ended_ms']:.0f}" if isinstance(st.get("ended_ms"), (int, float)) else "?"
    print(f"| {n} | {wall:.0f} | {g('devices_probed_ms')} | {g('contexts_ready_ms')} | "
          f"{g('first_band_started_ms')} | {g('first_band_rendered_ms')} | "
          f"{g('contexts_released_ms')} | {g('ended_ms')} | "
          f"{end} | {gpu:.1f} | {where} {colour:.1f} | {pool:.0f} | {write:.0f} |")
with open(f"{a}/targets.txt", "w") as t:
    for n, wall, render, gpu, *_ in rows:
        if n == "still":
            t.write(f"still <= 1.5 s wall: {wall / 1000:.2f} s {int(wall > 1500)}\n")
        if n == "sequence":
            t.write(f"sequence <= 8 s wall: {wall / 1000:.2f} s {int(wall > 8000)}\n")
            t.write(f"sequence GPU busy >= 50%: {100 * gpu / wall:.0f}% {int(gpu < wall / 2)}\n")
EOF
while read -r line; do
  record "target: ${line% *}" "${line##* }"
done <"$A/targets.txt"
find "$A" \( -name '*.png' -o -name '*.exr' \) -delete
tar czf "$OUT/render-speed.tgz" -C "$A" .
finish
