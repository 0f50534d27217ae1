// The reference orbit of perturbation (cuda/host_device/perturbation.h): Z_{n+1} = Z_n^2 + C at
// the centre C in as many bits as the view's depth needs (MPFR), kept as doubles (and floats) for
// the kernels, and its first point nearer 0 than doubles keep well also in the extended range.
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
  // The first point under kTinyRef (0: none) and its value in the extended range: the pixels'
  // orbits end there (perturbation.h), the points past it are kept for the view's other uses.
  unsigned tiny_at = 0;
  ComplexExp tiny;

  // The points the pixels use: up to the first tiny point where there is one.
  RefOrbitView view() const {
    RefOrbitView v(z.data(), tiny_at ? tiny_at + 1 : static_cast<unsigned>(z.size()), zf.data());
    v.tiny_at = tiny_at;
    v.tiny_x = tiny.x;
    v.tiny_y = tiny.y;
    v.tiny_e = tiny.e;
    return v;
  }
};

// Calls `progress` with the share done about every quarter second, and returns nothing once
// `cancel` is set (checked every few thousand iterations).
std::optional<ReferenceOrbit> compute_reference_orbit(
    mpfr_srcptr cx, mpfr_srcptr cy, int bits, unsigned max_iter,
    const std::atomic<bool>* cancel = nullptr,
    const std::function<void(double)>& progress = nullptr);

}  // namespace mp
