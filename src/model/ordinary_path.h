// Which instructions of a stretch of straight-ahead SASS (forward branches only: a pixel's set-up)
// a pixel whose numbers are ordinary runs: the perturbation kernel's set-up makes the pixel's
// offset from the reference in FloatExp arithmetic, whose range tests (zero, subnormal, an
// exponent out of double's range, an addend too small to count) branch on the pixel's numbers.
// docs/model.md, "The whole kernel", says how perturb's set-up is counted.
#pragma once

#include <cstddef>
#include <vector>

#include "model/sass.h"

namespace mp {

struct OrdinaryPaths {
  // Per instruction of [first, end): bit c set where case c reaches it. Case c holds the kernel
  // parameters zero_params[k] (offsets in constant bank 0) at FloatExp's zero exponent for each
  // bit k of c, the others at ordinary values.
  std::vector<unsigned> reached;
  std::vector<bool> params_read;  // each of zero_params: read by the code walked
  bool ok = true;                 // false: too many undecided branches to walk
};

// The walk: a test of a double against a constant is decided for the value 1, of an integer (an
// exponent or a difference of two) against a constant for 0, each as computed along the path
// from the parameters and constants it reads; tests on what the walk cannot tell (a lane's index,
// a parameter alone, two registers) take both sides.
OrdinaryPaths ordinary_paths(const sass::Function& f, std::size_t first, std::size_t end,
                             const std::vector<unsigned>& zero_params);

}  // namespace mp
