# Sourced by the GPU machine's scripts (run.sh, long.sh, deep.sh): unpacks the carried build
# (carry.sh), loads the GL kit, and gives them B (the programs), A (a folder for their logs, named by the caller first), log ($OUT/log.txt) and step (a command run
# with a 300 s limit, its output and exit code in the log).
tar xJf .carry/bin.tar.xz -C .carry
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export MANDELPIPE_BIN=$PWD/.carry/mandelpipe MANDELPIPE_XTEST_KEYS=$PWD/.carry/xtest-keys
export XDG_CONFIG_HOME=/tmp/xdg
B=$PWD/.carry
mkdir -p "$A"
log=$OUT/log.txt
step() { echo "== $*" | tee -a "$log"; timeout 300 "$@" >>"$log" 2>&1; local rc=$?; echo "   rc=$rc" | tee -a "$log"; return $rc; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$log"
