#!/bin/bash
# Runs on the GPU machine after run.sh (same carried tree): ncu's per-pipe
# instruction counts of each variant's render kernel at bench view C (3840x2160), where no lane
# idles. Divided by the warp-issued iterations they give the per-step mixes that
# tests/sass_parse_test.cpp holds (SassFixtures.Sm90PipesMatchHardwareCounters). The kernel
# measured is render_kernel<V, false>, which a view's frames run once its tile costs are known:
# the bench renders each view once with the recording kernel, then 2 + 10 frames without, so
# skipping 24 of the latter lands on view C.
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
M=sm__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fp64.sum
# Arguments pick variants (CLI:struct, e.g. fma4-esc4:Fma4Esc4); none: all seven.
all="fma5:Fma5 fma4:Fma4 fma4-sin:Fma4Sin sin-ratio:SinRatio fma4-esc4:Fma4Esc4 fma4-esc8:Fma4Esc8
  fp64:Fp64"
for vt in ${*:-$all}; do
  v=${vt%%:*} t=${vt##*:}  # the CLI name and the variant struct in the kernel's name
  .carry/mandelpipe render --out /tmp/c_$v.png --width 3840 --height 2160 --center -0.75,0 --span 0.05 --iters 16384 --variant $v >/dev/null 2>&1
  wi=$(python3 -c "import json;d=json.load(open('/tmp/c_$v.json'));print(d['frame']['measured']['warp_iters'])")
  ncu --clock-control none --metrics $M --kernel-name-base demangled -k "regex:render_kernel<mp::variants::$t, \(bool\)0>" --launch-skip 24 --launch-count 1 .carry/mandelpipe bench --variant $v --frames 10 > /tmp/ncu_$v.txt 2>&1
  python3 - "$v" "$wi" /tmp/ncu_$v.txt <<'P'
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
