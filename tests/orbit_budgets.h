// An orbit run in launches of `budget` steps each, as a frame cut by steps runs it
// (render_kernel.cu, resume_pixel): for tests on the CPU and against the GPU.
#pragma once

#include <algorithm>

#include "pixel.h"

namespace mp {

// Runs `o` on from where it stands to an escape, a repeat (kCycles) or max_iter; true while inside.
template <class V>
bool run_in_budgets(typename V::Real cx, typename V::Real cy, Orbit<typename V::Real>& o,
                    unsigned max_iter, unsigned budget) {
  bool inside = true;
  while (inside && !o.cycled && o.n < max_iter)
    inside = iterate_orbit<V>(cx, cy, o, std::min(max_iter, o.n + budget));
  return inside;
}

}  // namespace mp
