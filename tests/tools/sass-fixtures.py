#!/usr/bin/env python3
"""Cuts the render and perturbation kernels out of `cuobjdump -sass mandelpipe` (sass.txt from
scripts/device/run.sh) into tests/fixtures/sass/sm_XX.sass.gz, one file per architecture
(gzipped without a time stamp, so that the same SASS makes the same file)."""
import gzip
import re
import sys
from pathlib import Path

text = Path(sys.argv[1]).read_text()
out_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("tests/fixtures/sass")
per_arch = {}
arch = None
keep = False
for line in text.splitlines():
    m = re.search(r"code for (sm_\d+)", line)
    if m:
        arch, keep = m.group(1), False
        continue
    if "Function :" in line:
        # The render kernels (and their file's others) and the perturbation kernels' every-step
        # build, not the resumable ones: the tests read these loops, and the fixtures stay half
        # the size.
        keep = ("render_kernel" in line and "resumable_kernel" not in line) or (
            "perturb_kernel" in line and "Lb0E" in line)
        if keep:
            per_arch.setdefault(arch, []).append(f"\tcode for {arch}\n")
    elif line.startswith("\t\t....") or line.startswith("Fatbin"):
        keep = False
    line = re.sub(r"\s*/\* 0x[0-9a-f]{16} \*/\s*$", "", line)  # the encodings: not needed
    if keep and line.strip():
        per_arch[arch].append(line + "\n")
out_dir.mkdir(parents=True, exist_ok=True)
for arch, lines in sorted(per_arch.items()):
    with open(out_dir / f"{arch}.sass.gz", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as gz:
            gz.write("".join(lines).encode())
    print(arch, sum(1 for l in lines if "Function :" in l), "functions")
