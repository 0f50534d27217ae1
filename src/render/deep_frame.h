// What a deep frame's kernels read, made from the view in high precision: the reference orbit,
// the pixels as differences from it and the bilinear tables for the image's extent.
#pragma once

#include <mpfr.h>

#include <atomic>
#include <functional>
#include <optional>

#include "model/big_real.h"
#include "render/bla_table.h"
#include "render/reference_orbit.h"

namespace mp {

struct DeepFrame {
  ReferenceOrbit orbit;
  DeepGrid grid;
  BlaTable<BlaX> extended;
  BlaTable<BlaD> dbl;
  double bla_ms = 0;  // wall time of building the tables
};

// The image centre (cx, cy), its pixel spacing, and the reference point (rx, ry), all at `bits`;
// nothing if cancelled while the orbit was computed.
std::optional<DeepFrame> prepare_deep_frame(mpfr_srcptr cx, mpfr_srcptr cy, mpfr_srcptr spacing,
                                            mpfr_srcptr rx, mpfr_srcptr ry, int width, int height,
                                            unsigned max_iter, int bits,
                                            const std::atomic<bool>* cancel = nullptr,
                                            const std::function<void(double)>& progress = nullptr);

}  // namespace mp
