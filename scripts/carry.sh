#!/bin/bash
# Gathers what the GPU machine runs into .carry/ (ignored by git): the program, the test
# executables and the one shared library Debian has that the GPU machine's image lacks.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
build=${1:-build}
rm -rf .carry && mkdir -p .carry/lib
cp "$build/mandelpipe" "$build"/tests/*_tests .carry/
cp -L /lib/x86_64-linux-gnu/libstb.so.0 .carry/lib/
grep -qx '/.carry/' .git/info/exclude 2>/dev/null || echo '/.carry/' >> .git/info/exclude
du -sh .carry
