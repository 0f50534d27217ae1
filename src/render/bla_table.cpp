#include "render/bla_table.h"

#include <algorithm>

namespace mp {
namespace {

// A run as it is merged: A, B and the radius in the extended range, since products of many
// 2 Z_m leave double's range.
struct Run {
  ComplexExp a, b;
  FloatExp r;
};

Run single_step(RefPoint z) {
  Run s;
  s.a = to_complexexp(to_floatexp(2 * z.x), to_floatexp(2 * z.y));
  s.b = to_complexexp(to_floatexp(1.0), FloatExp{});
  // d^2 stays below epsilon |2 Z d| while |d| < epsilon |2 Z|.
  s.r = magnitude(s.a) * to_floatexp(kBlaEpsilon);
  return s;
}

// x first, then y: d -> Ay (Ax d + Bx dc) + By dc. It holds where x holds and where x's result,
// at most |Ax| |d| + |Bx| dc_max, is within y's radius.
Run merge(const Run& x, const Run& y, FloatExp dc_max) {
  Run m;
  m.a = y.a * x.a;
  m.b = y.a * x.b + y.b;
  const FloatExp room = y.r - magnitude(x.b) * dc_max;
  const FloatExp ax = magnitude(x.a);
  FloatExp ry{};
  if (room.m > 0 && ax.m > 0) ry = room / ax;
  m.r = min_of(x.r, ry);
  return m;
}

BlaX entry(const Run& s) {
  BlaX b;
  b.ax = s.a.x;
  b.ay = s.a.y;
  b.ae = s.a.e;
  b.bx = s.b.x;
  b.by = s.b.y;
  b.be = s.b.e;
  b.r_exp = s.r.m > 0 ? s.r.e : kZeroExp;
  return b;
}

}  // namespace

BlaTable<BlaX> build_bla_extended(RefOrbitView orbit, FloatExp dc_max,
                                  const std::atomic<bool>* cancel) {
  BlaTable<BlaX> t;
  if (orbit.length < 3) return t;
  // Single steps from m = 1 to length - 2: each ends on a point of the orbit.
  std::vector<Run> runs;
  runs.reserve(orbit.length - 2);
  for (unsigned m = 1; m + 1 < orbit.length; ++m) runs.push_back(single_step(orbit.z[m]));
  t.entries.reserve(2 * runs.size());
  // Radii are kept exact between levels; the table holds them rounded down to a power of two.
  while (!runs.empty() && t.levels() < kMaxBlaLevels) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return {};
    for (const Run& r : runs) t.entries.push_back(entry(r));
    t.offset.push_back(static_cast<unsigned>(t.entries.size()));
    std::vector<Run> next;
    next.reserve(runs.size() / 2);
    for (std::size_t k = 0; k + 1 < runs.size(); k += 2)
      next.push_back(merge(runs[k], runs[k + 1], dc_max));
    runs.swap(next);
  }
  return t;
}

BlaTable<BlaD> build_bla_double(const BlaTable<BlaX>& x) {
  BlaTable<BlaD> t;
  t.offset = x.offset;
  t.entries.reserve(x.entries.size());
  for (const BlaX& b : x.entries) {
    BlaD d;
    d.ax = to_double(FloatExp{b.ax, b.ae});
    d.ay = to_double(FloatExp{b.ay, b.ae});
    d.bx = to_double(FloatExp{b.bx, b.be});
    d.by = to_double(FloatExp{b.by, b.be});
    // A run whose coefficients or radius left double's range is never valid there.
    const bool fits = b.ae < 1000 && b.be < 1000 && b.r_exp > -1000;
    d.r = fits ? pow2(std::min(b.r_exp, 1023)) : 0.0;
    t.entries.push_back(d);
  }
  return t;
}

BlaTable<BlaF> build_bla_float(const BlaTable<BlaX>& x) {
  BlaTable<BlaF> t;
  t.offset = x.offset;
  t.entries.reserve(x.entries.size());
  for (const BlaX& b : x.entries) {
    BlaF f;
    f.ax = static_cast<float>(b.ax);
    f.ay = static_cast<float>(b.ay);
    f.bx = static_cast<float>(b.bx);
    f.by = static_cast<float>(b.by);
    f.ae = b.ae;
    f.be = b.be;
    f.r_exp = b.r_exp;
    t.entries.push_back(f);
  }
  return t;
}

}  // namespace mp
