#!/bin/bash
# Runs on the GPU machine after scripts/device-run.sh (same carried tree): ncu's per-pipe
# instruction counts of each variant's render kernel at view C, 1024x1024, where no lane idles.
# Divided by the warp-issued iterations they give the per-step mixes that
# tests/sass_parse_test.cpp holds (SassFixtures.Sm90PipesMatchHardwareCounters).
source .device/setup.sh >/dev/null
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
M=sm__inst_executed.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_fp64.sum
for v in fma5 fma4 fma4-sin sin-ratio fma4-esc4 fma4-esc8 fp64; do
  .carry/mandelpipe render --out /tmp/c_$v.png --width 1024 --height 1024 --center -0.75,0 --span 0.05 --iters 16384 --variant $v >/dev/null 2>&1
  python3 -c "import json;d=json.load(open('/tmp/c_$v.json'));print('$v', 'warp_iters', d['frame']['measured']['warp_iters'])"
  ncu --clock-control none --metrics $M -k regex:render_kernel .carry/mandelpipe render --out /tmp/n.png --width 1024 --height 1024 --center -0.75,0 --span 0.05 --iters 16384 --variant $v 2>&1 | grep -E "sm__" | sed "s/^/$v /"
done
