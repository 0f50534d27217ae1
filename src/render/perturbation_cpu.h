// The CPU reference of the perturbation kernels: the same per-pixel code
// (cuda/host_device/perturbation.h), threaded by rows of the kernels' 16x2 tiles.
#pragma once

#include <cstdint>

#include "perturbation.h"
#include "render/bla_table.h"

namespace mp {

struct PerturbStats : PerturbTally {
  double ms = 0;  // wall time
  // The rounds are counted (render/lockstep_rounds.h): perturb's every step, in double, with no
  // tables.
  bool rounds_counted = false;
};

// The tables of one reference orbit, in the formats the kernels read; null or empty: none.
struct BlaTables {
  const BlaTable<BlaD>* dbl = nullptr;
  const BlaTable<BlaX>* ext = nullptr;
  const BlaTable<BlaF>* flt = nullptr;
};

// The pixels of `rect` into `out`, 2 floats a pixel (smooth value, 0) as the plain renderers
// write them, and `counts` (optional), both row-major over the rect.
PerturbStats render_perturbation_cpu(DeltaFormat format, const DeepGrid& grid, PixelRect rect,
                                     RefOrbitView ref, const BlaTables& bla, unsigned max_iter,
                                     float* out, unsigned* counts = nullptr, unsigned threads = 0);
// The whole image.
inline PixelRect whole_image(const DeepGrid& g) {
  return {0, 0, g.width, g.height};
}

}  // namespace mp
