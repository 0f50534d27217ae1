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
// prologue false: a stretch inside a loop, whose registers the code before it does not settle:
// each register the walk reads before it writes it holds an ordinary number of the pixel.
// zero_loads: the stretch's loads (the reference's Z) read 0, and its FP64 arithmetic on known
// values is computed: a pixel's step where Z is 0 (Z_0 after a rebase, a nucleus' Z).
OrdinaryPaths ordinary_paths(const sass::Function& f, std::size_t first, std::size_t end,
                             const std::vector<unsigned>& zero_params, bool prologue = true,
                             bool zero_loads = false);

// A walk of a stretch of a loop's body from `from` as a pixel of ordinary numbers takes it (as
// ordinary_paths with prologue false): a path ends where it reaches an instruction in `stop`, a
// branch back to the loop's head, or leaves [first, end); one that reaches an instruction in
// `avoid` (another path's counting code) is dropped back to where it forked. `stop` and `avoid`
// are indexed by instruction of f.
struct StretchWalk {
  std::vector<bool> reached;         // by instruction of f: on a path that was not dropped
  std::vector<std::size_t> untaken;  // the sides of those paths' branches not taken, and of
                                     // forks whose side was dropped: where other paths begin
  std::vector<std::size_t> stops;    // the stops reached
  bool survived = false;             // a path was not dropped
  bool ok = true;                    // false: too many undecided branches to walk
};
StretchWalk walk_stretch(const sass::Function& f, std::size_t first, std::size_t end,
                         std::size_t from, const std::vector<bool>& stop,
                         const std::vector<bool>& avoid, bool zero_loads = false);

}  // namespace mp
