#!/bin/bash
# Gathers what the GPU machine runs into .carry/bin.tar.xz (ignored by git): the program, the
# GPU test executables, a key presser, and the shared libraries Debian has that the GPU
# machine's image lacks. Compressed, because the GL kit plus this must stay under the 64 MiB a
# call carries. run.sh and the other scripts beside this one unpack it there.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
build=${1:-build}
stage=$(mktemp -d)
mkdir -p "$stage/lib"
# core_tests and experiment_model_tests need no GPU: CI runs them.
cp "$build/mandelpipe" "$build"/tests/*_tests "$stage/"
rm -f "$stage/core_tests" "$stage/experiment_model_tests"
cp -L /lib/x86_64-linux-gnu/libstb.so.0 "$stage/lib/"
# MPFR and GMP (deep views' reference orbits), OpenEXR's libraries and Open MPI's (render over
# ranks; loaded at start whether or not mpirun started it), where the GPU machine's image may
# lack them.
ldd "$build/mandelpipe" "$build"/tests/*_tests 2>/dev/null |
  awk '/=> \// && $1 ~ /^lib(mpfr|gmp|OpenEXR|Iex|IlmThread|Imath|deflate|isal|mpi|open-rte|open-pal|hwloc|event_|udev)/ {print $3}' | sort -u |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
# A key presser for the window's scripted runs there (F12 and the like), where libXtst is there.
if [ -e /usr/lib/x86_64-linux-gnu/libXtst.so.6 ]; then
  cc -O2 -Wall tests/tools/xtest-keys.c -o "$stage/xtest-keys" -lX11 \
    /usr/lib/x86_64-linux-gnu/libXtst.so.6
  cp -L /usr/lib/x86_64-linux-gnu/libXtst.so.6 "$stage/lib/"
fi
strip --strip-unneeded "$stage/mandelpipe" "$stage"/*_tests
# The whole-kernel model recomputed offline against a recorded bench (whole-kernel.sh offline).
if [ -e "$build/tests/whole_kernel_agree" ]; then
  cp "$build/tests/whole_kernel_agree" "$stage/"
  strip --strip-unneeded "$stage/whole_kernel_agree"
fi
rm -rf .carry && mkdir -p .carry
tar cf - -C "$stage" . | xz -9e >.carry/bin.tar.xz
rm -rf "$stage"
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
