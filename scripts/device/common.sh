# shellcheck shell=bash
# The one preamble of the GPU machine's scripts (run.sh, long.sh, deep.sh, speed.sh, sanitize.sh,
# ncu-pipes.sh), sourced from the repository's root there. It unpacks the carried build
# (carry.sh; $MP_CARRY_DIR names another folder than .carry/ that holds bin.tar.xz), loads the
# GL kit (.device), and sets MP_REQUIRE_GPU=1: this machine has a GPU, so a GPU test that finds
# none fails instead of skipping. It gives the script:
#   B        the carried programs
#   A        a folder for its logs, which the script names before sourcing this
#   log      $OUT/log.txt, which starts with the GPU's name, driver and clocks
#   step     a command run with a 300 s limit, its output and exit code in the log, its outcome kept
#   record   NAME RC: the outcome of a command run otherwise (its output elsewhere), kept
#   timed    NAME CMD...: CMD run in $A/NAME/ (made empty), its output in $A/NAME.txt, its wall
#            time in ms in $A/NAME.ms, its outcome kept
#   finish   prints the outcomes kept as a table, last, and exits non-zero if any failed
B=$PWD/${MP_CARRY_DIR:-.carry}
if ! tar xJf "$B/bin.tar.xz" -C "$B"; then
  echo "no carried build in $B (scripts/device/carry.sh makes bin.tar.xz; carry that folder)" >&2
  exit 2
fi
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$B/lib:${LD_LIBRARY_PATH:-}
export MANDELPIPE_BIN=$B/mandelpipe MANDELPIPE_XTEST_KEYS=$B/xtest-keys XDG_CONFIG_HOME=/tmp/xdg
export MP_REQUIRE_GPU=1
mkdir -p "$A"
log=$OUT/log.txt
outcomes=()
record() { outcomes+=("$(printf '%4s  %.90s' "$2" "${1//$B\//}")"); }
step() {
  echo "== $*" | tee -a "$log"
  timeout 300 "$@" >>"$log" 2>&1
  local rc=$?
  echo "   rc=$rc" | tee -a "$log"
  record "$*" "$rc"
  return $rc
}
timed() {
  local name=$1 t0 t1 rc
  shift
  rm -rf "${A:?}/$name"
  mkdir -p "$A/$name"
  t0=$(date +%s%N)
  (cd "$A/$name" && "$@") >"$A/$name.txt" 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000)) >"$A/$name.ms"
  record "$name: $*" $rc
  echo "== $name: rc=$rc, $(((t1 - t0) / 1000000)) ms" | tee -a "$log"
  return $rc
}
finish() {
  local o failed=0
  for o in "${outcomes[@]}"; do [[ $o == "   0  "* ]] || failed=$((failed + 1)); done
  {
    echo "== outcomes: exit code, then what ran"
    ((${#outcomes[@]} == 0)) || printf '%s\n' "${outcomes[@]}"
    echo "== ${#outcomes[@]} run, $failed failed"
  } | tee -a "$log"
  exit $((failed > 0))
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$log"
