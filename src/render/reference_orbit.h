// The reference orbit of perturbation (cuda/host_device/perturbation.h): Z_{n+1} = Z_n^2 + C at
// the centre C in as many bits as the view's depth needs (MPFR), kept as doubles (and floats) for
// the kernels.
#pragma once

#include <mpfr.h>

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "perturbation.h"

namespace mp {

struct ReferenceOrbit {
  std::vector<RefPoint> z;    // Z_0 = 0 ... the first outside the bailout, or Z_max_iter
  std::vector<RefPointF> zf;  // the same rounded to float
  bool escaped = false;       // the last point is outside the bailout
  int bits = 0;               // the precision it was computed in
  double ms = 0;              // wall time of the computation

  RefOrbitView view() const { return {z.data(), static_cast<unsigned>(z.size()), zf.data()}; }
};

// Calls `progress` with the share done about every quarter second, and returns nothing once
// `cancel` is set (checked every few thousand iterations).
std::optional<ReferenceOrbit> compute_reference_orbit(
    mpfr_srcptr cx, mpfr_srcptr cy, int bits, unsigned max_iter,
    const std::atomic<bool>* cancel = nullptr,
    const std::function<void(double)>& progress = nullptr);

}  // namespace mp
