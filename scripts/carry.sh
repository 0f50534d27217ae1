#!/bin/bash
# Gathers what the GPU machine runs into .carry/ (ignored by git): the program, the test
# executables and the one shared library Debian has that the GPU machine's image lacks.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
build=${1:-build}
rm -rf .carry && mkdir -p .carry/lib
# core_tests need no GPU: CI runs them.
cp "$build/mandelpipe" "$build"/tests/{gpu,gl,program}_tests .carry/
cp -L /lib/x86_64-linux-gnu/libstb.so.0 .carry/lib/
# Symbols are not needed there, and the carried tree is limited to 64 MiB with the GL kit.
strip --strip-unneeded .carry/mandelpipe .carry/*_tests
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
