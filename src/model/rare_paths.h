// perturb-x's and perturb-f's step loop, cut as a trip runs it: the path of a step and its tests
// on ordinary numbers (the common path), and each rare path the every-step kernel counts
// (perturbation.h: RarePath), found in the listing by its counting code: a shared-memory atomic
// at the warp's row of counters, kRarePaths of visits and then as many of whole-warp visits, so
// that an atomic's offset from the first path's (a step from d = 0, which every kernel has) tells
// its path. docs/model.md, "perturb-x and perturb-f", says how the model counts them.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "model/sass.h"
#include "perturbation.h"

namespace mp {

struct RarePaths {
  std::string unusable;  // empty: the loop is cut; else why not
  // The common path of a trip up to its escape exit (every trip), and after it (the trips that
  // went on).
  std::vector<std::size_t> common, went_on;
  // What a visit of each path runs, as a pixel of ordinary numbers takes it; for
  // kNearStepAtZero and kNearTestAtZero, their parent's code where the reference's Z is 0.
  std::array<std::vector<std::size_t>, kRarePaths> region;
  // The common path's instructions that a visit of the whole warp skips (the path runs instead
  // of the common step or test).
  std::array<std::vector<std::size_t>, kRarePaths> instead;
  // The loop's instructions that neither the common path nor a counted path's ordinary walk runs
  // (zero, subnormal or out-of-range numbers; the escape's own moves).
  std::vector<std::size_t> unwalked;
};

// The loop [first, last] of f (last: its back edge).
RarePaths rare_paths(const sass::Function& f, std::size_t first, std::size_t last);

// The path a counter of a warp's row counts (kRarePaths and on: whole-warp visits of path
// slot - kRarePaths), from a shared-memory atomic's address: its offset (the immediate after the
// registers, 0 without one).
long long atomic_offset(const sass::Instruction& x);

}  // namespace mp
