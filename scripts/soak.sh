#!/bin/bash
# Soak test: the window for N frames under random keys (variants, pan, zoom, panels, F12
# captures), wheel zooms, resizes down to 1x1 and minimise/restore, driven by xtest-keys.
# Fails when the program exits non-zero, prints an error (GL, CUDA or any other), renders other
# than N frames, or its resident memory (and, with --cuda, its GPU memory) at the baseline size
# grows by more than the tolerance from the start (after a warm-up tour) to the end.
# Needs a display (Xvfb is enough); exits 77 (skipped) without one or without xtest-keys.
#   scripts/soak.sh [--frames N] [--cuda] [--tolerance-mib M] [--seed S] [--bin PATH] [--keys PATH]
set -euo pipefail
cd "$(dirname "$0")/.."

frames=10000 cuda=0 tolerance_mib=32 seed=$$ bin=build/mandelpipe keys=build/tests/xtest-keys
usage() {
  echo "usage: scripts/soak.sh [--frames N] [--cuda] [--tolerance-mib M] [--seed S] [--bin PATH] [--keys PATH]" >&2
  exit 2
}
while (($#)); do
  case $1 in
    --frames) frames=${2:-}; shift 2 || usage ;;
    --cuda) cuda=1; shift ;;
    --tolerance-mib) tolerance_mib=${2:-}; shift 2 || usage ;;
    --seed) seed=${2:-}; shift 2 || usage ;;
    --bin) bin=${2:-}; shift 2 || usage ;;
    --keys) keys=${2:-}; shift 2 || usage ;;
    *) usage ;;
  esac
done
[[ $frames =~ ^[1-9][0-9]*$ && $tolerance_mib =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || usage
skip() {
  if [[ ${MP_REQUIRE_DISPLAY:-0} != 0 ]]; then echo "soak: $1 (and MP_REQUIRE_DISPLAY is set)" >&2; exit 1; fi
  echo "soak: skipped: $1" >&2
  exit 77
}
[[ -n ${DISPLAY:-} ]] || skip "no DISPLAY (run it under Xvfb)"
[[ -x $keys ]] || skip "no $keys to press keys with (libxtst-dev)"
[[ -x $bin ]] || { echo "soak: no program at $bin (build it first)" >&2; exit 1; }

tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/captures" "$tmp/config"
path=(--cpu)
((cuda)) && path=()
XDG_CONFIG_HOME=$tmp/config "$bin" "${path[@]}" --frames "$frames" --no-vsync --width 640 --height 360 \
  --iters 128 --capture-dir "$tmp/captures" >"$tmp/out" 2>"$tmp/err" </dev/null &
pid=$!

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true; }
gpu_mib() {
  ((cuda)) && command -v nvidia-smi >/dev/null || return 0
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v p="$pid" '$1 == p {print $2}'
}
alive() { kill -0 "$pid" 2>/dev/null; }
# Back to the size and state every sample is taken at, so that samples compare.
baseline=(restore resize 640 360 w300)

RANDOM=$seed
key_names=(1 2 3 4 5 6 7 8 9 Left Right Up Down equal minus KP_Add KP_Subtract P S D V Tab F12 Home
           Page_Down)
sizes=("1 1" "2 3" "17 9" "64 64" "320 180" "640 360" "1000 700" "1280 1024")
random_batch() {
  local n
  for n in $(seq 12); do
    case $((RANDOM % 20)) in
      0 | 1) echo "resize ${sizes[RANDOM % ${#sizes[@]}]}" ;;
      2) echo "iconify w$((RANDOM % 300)) restore" ;;
      3 | 4) echo "scroll $((RANDOM % 640)) $((RANDOM % 360)) $((RANDOM % 7 - 3))" ;;
      *) echo "${key_names[RANDOM % ${#key_names[@]}]}" ;;
    esac
  done
}

# Warm-up: every size, key and state once, so that caches and pools reach their size first.
tour=()
for s in "${sizes[@]}"; do tour+=(resize $s w100); done
tour+=("${key_names[@]}" iconify w200 restore "${key_names[@]}" Home)
for _ in $(seq 100); do
  alive || break
  "$keys" window mandelpipe >/dev/null 2>&1 && break
  sleep 0.1
done
batches=0 start_rss= start_gpu= end_rss= end_gpu= peak_rss=0 samples=()
deadline=$((SECONDS + 600 + frames / 10))
while alive; do
  if ((SECONDS > deadline)); then
    echo "soak: still running after $((SECONDS / 60)) minutes: hung?" >&2
    exit 1
  fi
  if ((batches == 0)); then actions=("${tour[@]}"); else read -ra actions <<<"$(random_batch | tr '\n' ' ')"; fi
  "$keys" window mandelpipe hold30 "${actions[@]}" "${baseline[@]}" >/dev/null 2>&1 || true
  batches=$((batches + 1))
  rss=$(rss_kib)
  [[ -n $rss ]] || break
  gpu=$(gpu_mib)
  ((rss > peak_rss)) && peak_rss=$rss
  ((batches >= 2)) && samples+=("$rss")
  if ((batches == 2)); then start_rss=$rss start_gpu=$gpu; fi
  end_rss=$rss end_gpu=$gpu
done
wait "$pid" && code=0 || code=$?
pid=

fail=0
report() { echo "soak: $*" >&2; }
done_frames=$(sed -n 's/^frames \([0-9]*\),.*/\1/p' "$tmp/out")
captures=$(find "$tmp/captures" -name '*.png' | wc -l)
report "seed $seed, $batches batches of input, frames ${done_frames:-?} of $frames, $captures captures," \
  "exit $code"
sed -n 's/^final view: /soak: final view: /p' "$tmp/out" >&2
if ((code != 0)); then report "FAIL: exit status $code"; fail=1; fi
if [[ $done_frames != "$frames" ]]; then report "FAIL: rendered ${done_frames:-no} frames, not $frames"; fail=1; fi
if grep -Eiq 'error|fail|abort|sanitizer' "$tmp/err"; then
  report "FAIL: the program reported an error:"
  grep -Ei 'error|fail|abort|sanitizer' "$tmp/err" | head -n 5 >&2
  fail=1
fi
if ((cuda)) && grep -q 'CPU renderer' "$tmp/err"; then
  report "FAIL: --cuda, but the program ran on the CPU path:"
  grep 'CPU renderer' "$tmp/err" | head -n 1 >&2
  fail=1
fi
if [[ -z $start_rss ]]; then
  report "FAIL: the program ended before the first samples ($batches batches): use more frames"
  fail=1
else
  growth_kib=$((end_rss - start_rss))
  report "resident memory at 640x360: start $((start_rss / 1024)) MiB, end $((end_rss / 1024)) MiB" \
    "(growth $((growth_kib / 1024)) MiB, tolerance $tolerance_mib MiB), peak $((peak_rss / 1024)) MiB"
  trend=()
  for i in 0 1 2 3 4 5 6 7 8; do trend+=($((samples[i * (${#samples[@]} - 1) / 8] / 1024))); done
  report "resident memory (MiB) from start to end in eighths: ${trend[*]}"
  if ((growth_kib > tolerance_mib * 1024)); then report "FAIL: resident memory grew"; fail=1; fi
  if [[ -n $start_gpu && -n $end_gpu ]]; then
    report "GPU memory: start $start_gpu MiB, end $end_gpu MiB"
    if ((end_gpu - start_gpu > tolerance_mib)); then report "FAIL: GPU memory grew"; fail=1; fi
  elif ((cuda)); then
    report "GPU memory: not reported (no nvidia-smi, or it does not list the process)"
  fi
fi
exit $fail
