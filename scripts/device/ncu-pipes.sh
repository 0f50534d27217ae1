#!/bin/bash
# Runs on the GPU machine over a carried build (carry.sh): ncu's per-pipe instruction counts of
# each plain variant's render kernel at bench view C (3840x2160), where no lane idles. Divided by
# the warp-issued iterations they give the per-step mixes that tests/sass_parse_test.cpp holds
# (SassFixtures.Sm90PipesMatchHardwareCounters). The kernel measured is render_kernel<V, false>,
# which bench runs for a view's frames after its first (the recording kernel: each pixel's step
# count, to compare with fma4's): 2 + 10 frames a view, so skipping 24 of them lands on view C.
# The perturbation variants run other kernels, and are left out.
#   scripts/device/ncu-pipes.sh [VARIANT...]   (default: every plain variant)
# One line per variant, then every run's exit code; exits non-zero if any failed.
set -u
A=/tmp/ncu-pipes
source "$(dirname "$0")/common.sh"
M=sm__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum
M=$M,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fp64.sum
# The program's own list: the name --variant takes, the struct in the kernel's name, the kind.
listing=$($B/mandelpipe --list-variants) || {
  echo "ncu-pipes: mandelpipe --list-variants failed" >&2
  exit 2
}
for v in ${*:-$(awk '$3 == "plain" {print $1}' <<<"$listing")}; do
  t=$(awk -v v="$v" '$1 == v && $3 == "plain" {print $2}' <<<"$listing")
  if [[ -z $t ]]; then
    echo "ncu-pipes: '$v' is no plain variant (mandelpipe --list-variants)" | tee -a "$log"
    record "$v" 2
    continue
  fi
  $B/mandelpipe render --out "$A/c_$v.png" --width 3840 --height 2160 --center -0.75,0 \
    --span 0.05 --iters 16384 --variant "$v" >/dev/null 2>>"$log"
  rc=$?
  record "render $v" $rc
  ((rc == 0)) || continue
  wi=$(python3 -c "import json;d=json.load(open('$A/c_$v.json'));print(d['frame']['measured']['warp_iters'])")
  ncu --clock-control none --metrics $M --kernel-name-base demangled \
    -k "regex:render_kernel<mp::variants::$t, \(bool\)0>" --launch-skip 24 --launch-count 1 \
    $B/mandelpipe bench --variant "$v" --frames 10 >"$A/ncu_$v.txt" 2>&1
  record "ncu on $v" $?
  python3 - "$v" "$wi" "$A/ncu_$v.txt" <<'P' | tee -a "$log"
import sys
v,wi,f=sys.argv[1],float(sys.argv[2]),sys.argv[3]
m={}
for l in open(f):
    p=l.split()
    if len(p)>=3 and p[0].startswith('sm__'): m[p[0]]=float(p[-1].replace(',',''))
g=lambda k: m.get(k,float('nan'))/wi
print(v,'warp_iters',int(wi),'per step: fma %.3f alu %.3f xu %.3f fp64 %.3f total %.3f'%(g('sm__inst_executed_pipe_fma.sum'),g('sm__inst_executed_pipe_alu.sum'),g('sm__inst_executed_pipe_xu.sum'),g('sm__inst_executed_pipe_fp64.sum'),g('sm__inst_executed.sum')))
P
done
finish
