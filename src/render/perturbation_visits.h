// The visits of perturb-x's and perturb-f's rare paths (perturbation.h: RarePath) that their
// every-step kernels count, worked out on the CPU: the same per-pixel code, each pixel's rare
// paths recorded by the step they came in, and the kernel's warps (16x2 tiles, lane k at
// (k % 16, k / 16), every lane a step a trip) made of them: a warp visits a path in a trip where
// one of its lanes takes it, and visits it whole where all 32 do. So the whole-kernel model of
// these variants can be checked against recorded counters without a GPU
// (tests/tools/whole_kernel_agree.cpp). On the GPU lanes that diverged earlier may visit a path
// apart, which this counts once.
#pragma once

#include "perturbation.h"

namespace mp {

// The tallies (steps, warps' slowest lanes, rebases and the rare paths' visits) of the whole
// image, and each pixel's step count into `counts` (width x height, optional).
PerturbTally rare_visits_cpu(DeltaFormat format, const DeepGrid& grid, RefOrbitView ref,
                             unsigned max_iter, unsigned* counts = nullptr, unsigned threads = 0);

}  // namespace mp
