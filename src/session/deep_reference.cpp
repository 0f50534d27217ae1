#include "session/deep_reference.h"

#include <chrono>
#include <cmath>

#include "render/mpfr_temps.h"
#include "render/nucleus.h"

namespace mp {
namespace {

// The largest |dc| of the view's pixels, given the reference's offset from its centre: the
// half diagonal of the image, a pixel more, and the offset.
FloatExp largest_dc(const View& view, int width, int height, FloatExp offset) {
  const FloatExp spacing = quotient(view.span, to_floatexp(static_cast<double>(width)));
  return spacing * to_floatexp(std::hypot(width, height) / 2 + 1) + offset;
}

FloatExp offset_of(const DeepReference& ref, const View& view) {
  const FloatExp dx = to_floatexp(view.center_x - ref.x), dy = to_floatexp(view.center_y - ref.y);
  return magnitude(to_complexexp(dx, dy));
}

constexpr int kSpareBits = 64;
// Periods longer than this are not looked for: Newton's method runs the period's steps in MPFR
// a few dozen times, which past it takes longer than rebasing saves.
constexpr unsigned kMaxNucleusPeriod = 20000;
constexpr double kMaxNewtonWork = 2e7;  // period x bits
// A view with no minibrot in it looks for the nearest one 4, 16, 64 and 256 times as far out.
constexpr int kNearPeriodWidenings = 4;

// The nucleus nearest the view's centre, where one is within the image: the reference moved
// there (true), or left at the centre.
bool move_to_nucleus(DeepReference& ref, const ReferenceOrbit& centre, const View& view, int width,
                     int height, int bits, const std::atomic<bool>* cancel) {
  const FloatExp half_diagonal = quotient(view.span, to_floatexp(static_cast<double>(width))) *
                                 to_floatexp(std::hypot(width, height) / 2);
  const std::optional<unsigned> period =
      ball_period_of(centre.view(), half_diagonal, std::min(view.max_iter, kMaxNucleusPeriod));
  // Newton's method runs the period's steps in MPFR at the view's bits a few dozen times: past
  // this much work it costs seconds, more than rebasing at the centre's orbit's end does.
  if (!period || static_cast<double>(*period) * bits > kMaxNewtonWork) return false;
  MpfrTemps<2> c(bits);
  mpfr_set(c[0], ref.x.get(), MPFR_RNDN);
  mpfr_set(c[1], ref.y.get(), MPFR_RNDN);
  const FloatExp pixel = quotient(view.span, to_floatexp(static_cast<double>(width)));
  const Nucleus n =
      newton_nucleus(c[0], c[1], *period, bits, pixel * to_floatexp(1e-6), half_diagonal, cancel);
  // A minibrot under a pixel is nothing in view, and its nucleus needs more bits than the view
  // has to stay inside it.
  if (!n.found || n.size < pixel) return false;
  ref.x = BigReal::of(c[0]);
  ref.y = BigReal::of(c[1]);
  ref.nucleus_period = n.period;
  return true;
}

// The reference's orbit in, its tables (where `tables`) made for pixels up to twice the image's
// half diagonal from the point and for every pixel of the view; false if cancelled meanwhile.
bool finish(DeepReference& ref, ReferenceOrbit orbit, const View& view, int width, int height,
            const std::atomic<bool>* cancel, bool tables = true) {
  ref.orbit = std::move(orbit);
  const auto start = std::chrono::steady_clock::now();
  View wider = view;
  wider.span = wider.span * to_floatexp(2.0);
  const FloatExp around = largest_dc(wider, width, height, FloatExp{});
  const FloatExp from_point = largest_dc(view, width, height, offset_of(ref, view));
  const RefOrbitView steps = ref.orbit.view();
  ref.view_period = ref.nucleus_period;
  ref.period_in_view = ref.view_period != 0;
  FloatExp reach = from_point;
  for (int widening = 0; widening <= kNearPeriodWidenings && !ref.view_period; ++widening) {
    ref.view_period = ball_period_of(steps, reach, steps.length).value_or(0);
    ref.period_in_view = widening == 0;
    reach = reach * to_floatexp(4.0);
  }
  ref.dc_max = around < from_point ? from_point : around;
  if (!tables) return true;
  ref.extended = build_bla_extended(ref.orbit.view(), ref.dc_max, cancel);
  if (cancel && cancel->load()) return false;
  ref.dbl = build_bla_double(ref.extended);
  ref.flt = build_bla_float(ref.extended);
  ref.bla_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return true;
}

}  // namespace

bool serves(const DeepReference& ref, const View& view, int width, int height) {
  if (ref.orbit.bits < view_bits(view, width)) return false;
  if (!ref.orbit.escaped && ref.max_iter < view.max_iter) return false;
  const FloatExp offset = offset_of(ref, view);
  // Beyond a few spans the differences lose the bits that tell pixels apart.
  if (view.span * to_floatexp(4.0) < offset) return false;
  return !(ref.dc_max < largest_dc(view, width, height, offset));
}

std::shared_ptr<const DeepReference> reference_at(const BigReal& x, const BigReal& y,
                                                  const View& view, int width, int height, int bits,
                                                  const std::atomic<bool>* cancel,
                                                  const std::function<void(double)>& progress) {
  auto ref = std::make_shared<DeepReference>();
  ref->x = x.with_bits(bits);
  ref->y = y.with_bits(bits);
  ref->max_iter = view.max_iter;
  std::optional<ReferenceOrbit> orbit =
      compute_reference_orbit(ref->x.get(), ref->y.get(), bits, view.max_iter, cancel, progress);
  if (!orbit || !finish(*ref, std::move(*orbit), view, width, height, cancel)) return nullptr;
  return ref;
}

std::shared_ptr<const DeepReference> make_reference(const View& view, int width, int height,
                                                    const std::atomic<bool>* cancel,
                                                    const std::function<void(double)>& progress,
                                                    bool tables) {
  auto ref = std::make_shared<DeepReference>();
  // Bits to spare, so that zooming in about the point keeps the reference a while.
  const int bits = view_bits(view, width) + kSpareBits;
  ref->x = view.center_x.with_bits(bits);
  ref->y = view.center_y.with_bits(bits);
  ref->max_iter = view.max_iter;
  std::optional<ReferenceOrbit> orbit =
      compute_reference_orbit(ref->x.get(), ref->y.get(), bits, view.max_iter, cancel, progress);
  if (!orbit) return nullptr;
  if (orbit->escaped && orbit->z.size() - 1 < view.max_iter) {
    ref->centre_escaped_at = static_cast<unsigned>(orbit->z.size() - 1);
    if (!move_to_nucleus(*ref, *orbit, view, width, height, bits, cancel)) {
      if (cancel && cancel->load()) return nullptr;
    } else if (std::optional<ReferenceOrbit> at_nucleus = compute_reference_orbit(
                   ref->x.get(), ref->y.get(), bits, view.max_iter, cancel, progress)) {
      // Kept only where it lasts longer than the centre's (a nucleus's orbit never escapes).
      if (at_nucleus->z.size() > orbit->z.size()) {
        orbit = std::move(at_nucleus);
      } else {
        ref->x = view.center_x.with_bits(bits);
        ref->y = view.center_y.with_bits(bits);
        ref->nucleus_period = 0;
      }
    } else {
      return nullptr;
    }
  }
  if (!finish(*ref, std::move(*orbit), view, width, height, cancel, tables)) return nullptr;
  return ref;
}

DeepGrid deep_grid(const DeepReference& ref, const View& view, int width, int height) {
  DeepGrid g;
  g.width = width;
  g.height = height;
  g.spacing = quotient(view.span, to_floatexp(static_cast<double>(width)));
  g.dc0x = to_floatexp(view.center_x - ref.x);
  g.dc0y = to_floatexp(view.center_y - ref.y);
  return g;
}

}  // namespace mp
