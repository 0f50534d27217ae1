#include "view.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <glm/vec2.hpp>

namespace mp {
namespace {

glm::dvec2 centre(const View& v) {
  return {v.center_x.to_double(), v.center_y.to_double()};
}

// From the image centre to a point given in pixels, in pixels along the plane's axes: rows go
// down while y goes up. Each axis subtracts in its own order so that a zero offset keeps its
// sign as the scalar arithmetic it replaced did.
glm::dvec2 from_centre(glm::dvec2 pixel, int width, int height) {
  return {pixel.x - width / 2.0, height / 2.0 - pixel.y};
}

// The width of a pixel in the plane.
FloatExp pixel_size(const View& v, int width) {
  return quotient(v.span, to_floatexp(static_cast<double>(width)));
}

}  // namespace

FloatExp held_span(FloatExp span) {
  if (!(span.m > 0) || span < kMinSpan) return kMinSpan;
  return min_of(span, to_floatexp(kMaxSpan));
}

std::optional<FloatExp> parse_view_span(std::string_view decimal) {
  const std::optional<FloatExp> s = parse_span(decimal);
  if (!s || *s < kMinSpan || to_floatexp(kMaxSpan) < *s) return std::nullopt;
  return s;
}

View view_at(double x, double y, double span, unsigned max_iter) {
  View v;
  v.center_x = BigReal(x);
  v.center_y = BigReal(y);
  v.span = to_floatexp(span);
  v.max_iter = max_iter;
  return v;
}

std::optional<View> parse_view(std::string_view x, std::string_view y, std::string_view span,
                               unsigned max_iter) {
  View v;
  const std::optional<FloatExp> s = parse_view_span(span);
  if (!s) return std::nullopt;
  v.span = *s;
  std::optional<BigReal> cx = parse_centre(x, v), cy = parse_centre(y, v);
  if (!cx || !cy) return std::nullopt;
  v.center_x = std::move(*cx);
  v.center_y = std::move(*cy);
  v.max_iter = max_iter;
  return v;
}

int view_bits(const View& v, int width) {
  // A span that is no span (a bad bookmark on its way to being refused) resolves nothing.
  if (!(v.span.m > 0)) return 64;
  const double resolve = std::log2(static_cast<double>(width)) - (v.span.e + std::log2(v.span.m));
  return std::max(64, static_cast<int>(std::ceil(resolve)) + 32);
}

int centre_digits(const View& v) {
  if (!(v.span.m > 0)) return 17;
  const double resolve = std::log10(static_cast<double>(kMaxImageSize)) - log10_of(v.span);
  return std::max(17, static_cast<int>(std::ceil(resolve)) + 3);
}

std::string centre_text(const BigReal& coordinate, const View& v) {
  // From the digits a pixel needs up to those that read back any value of `bits` (a few more):
  // the first that reads back to the same value, so that a view written and read is the same
  // view. Trailing zeros are dropped, so that a centre typed short is written short.
  const int bits = view_bits(v);
  const BigReal c = coordinate.with_bits(bits);
  const int most = static_cast<int>(std::ceil(bits * std::log10(2.0))) + 1;
  // A centre typed short (0, 1, -0.75) reads back from its short text, which is then what the
  // digits a pixel needs give with their trailing zeros dropped (the value lies within 2^-bits of
  // it, far closer than their last digit): tried first, it spares formatting millions of digits
  // at the deepest spans.
  constexpr int kShort = 17;
  if (centre_digits(v) > kShort) {
    std::string text = c.str(kShort);
    if (BigReal::parse(text, bits) == c) return text;
  }
  for (int digits = centre_digits(v); digits < most; ++digits) {
    std::string text = c.str(digits);
    if (BigReal::parse(text, bits) == c) return text;
  }
  return c.str(most);
}

std::optional<BigReal> parse_centre(std::string_view decimal, const View& v) {
  std::optional<BigReal> c = BigReal::parse(decimal, view_bits(v));
  if (c && !(std::abs(c->to_double()) <= kMaxCentre)) return std::nullopt;
  return c;
}

View held_in_range(View v) {
  v.span = held_span(v.span);
  const int bits = view_bits(v);
  for (BigReal* c : {&v.center_x, &v.center_y}) {
    const double d = c->to_double();
    if (!(std::abs(d) <= kMaxCentre)) *c = BigReal(d > 0 ? kMaxCentre : -kMaxCentre, bits);
  }
  return v;
}

PixelGrid pixel_grid(const View& v, int width, int height) {
  const double d = to_double(v.span) / width;
  // The top-left pixel's centre: half a pixel in from the corner.
  const glm::dvec2 first = centre(v) + from_centre(glm::dvec2(0.5), width, height) * d;
  PixelGrid g;
  g.width = width;
  g.height = height;
  g.x0 = first.x;
  g.y0 = first.y;
  g.dx = d;
  g.dy = -d;
  return g;
}

View pan_by_pixels(View v, double dx_px, double dy_px, int width, int /*height*/) {
  // A drag down (+y in pixels) is -y in the plane.
  const FloatExp d = pixel_size(v, width);
  const int bits = view_bits(v, width);
  v.center_x = v.center_x.plus(-(to_floatexp(dx_px) * d), bits);
  v.center_y = v.center_y.plus(to_floatexp(dy_px) * d, bits);
  return held_in_range(std::move(v));
}

View whole_window_view(View seen, int width, int left) {
  if (left <= 0 || left >= width) return seen;
  const FloatExp d = pixel_size(seen, width - left);
  seen.span = d * to_floatexp(static_cast<double>(width));
  // The whole window's centre lies left/2 pixels left of the area's.
  seen.center_x = seen.center_x.plus(-(to_floatexp(left / 2.0) * d), view_bits(seen, width));
  return seen;
}

View view_beside(View whole, int width, int left) {
  if (left <= 0 || left >= width) return whole;
  const FloatExp d = pixel_size(whole, width);
  whole.span = d * to_floatexp(static_cast<double>(width - left));
  whole.center_x = whole.center_x.plus(to_floatexp(left / 2.0) * d, view_bits(whole, width));
  return whole;
}

View fitted_set(int width, int height, unsigned max_iter) {
  // re -2.1..0.57 and im -1.2..1.2: the set and a margin, its middle -0.765 as a decimal (so that
  // Ctrl+C and the sidecars write it so).
  constexpr double set_width = 2.67, set_height = 2.4;
  if (width <= 0 || height <= 0) return view_at(-0.5, 0, 3, max_iter);
  const double per_px = std::max(set_width / width, set_height / static_cast<double>(height));
  View v = view_at(0, 0, per_px * width, max_iter);
  v.center_x = *parse_centre("-0.765", v);
  v.center_y = v.center_y.with_bits(view_bits(v));
  return v;
}

FloatExp span_between(FloatExp from, FloatExp to, double t) {
  const FloatExp ratio = quotient(to, from);
  // Within double's range, the power as the double views took it (the same bits); past it, in
  // log space, where the exponent is an integer apart from the mantissa.
  if (ratio.e > -1000 && ratio.e < 1000) {
    const double p = std::pow(to_double(ratio), t);
    if (p >= DBL_MIN && p <= DBL_MAX) return from * to_floatexp(p);
  }
  const double log2_power = t * (ratio.e + std::log2(ratio.m));
  const double whole = std::floor(log2_power);
  return scaled(from * to_floatexp(std::exp2(log2_power - whole)), static_cast<int>(whole));
}

std::vector<View> zoom_views(const ZoomPath& z) {
  std::vector<View> views;
  for (int k = 0; k < z.steps; ++k) {
    // Each span from the first by a power, not by repeated multiplying: no drift along the path.
    const double t = z.steps > 1 ? static_cast<double>(k) / (z.steps - 1) : 0.0;
    View v;
    v.span = span_between(z.from, z.to, t);
    v.center_x = z.x.with_bits(view_bits(v));
    v.center_y = z.y.with_bits(view_bits(v));
    v.max_iter = z.iters;
    views.push_back(std::move(v));
  }
  return views;
}

// The centre is interpolated at the bits each frame's span needs, the last frame's being `to`'s
// exactly.
std::vector<View> zoom_sequence(const View& from, const View& to, int frames) {
  std::vector<View> views;
  for (int k = 0; k + 1 < frames; ++k) {
    const double t = static_cast<double>(k) / (frames - 1);
    View v = from;
    v.span = span_between(from.span, to.span, t);
    const int bits = std::max({view_bits(v), from.center_x.bits(), to.center_x.bits()});
    const BigReal fx = from.center_x.with_bits(bits), fy = from.center_y.with_bits(bits);
    const BigReal dx = to.center_x.with_bits(bits) - fx, dy = to.center_y.with_bits(bits) - fy;
    if (k == 0) {
      v.center_x = from.center_x;
      v.center_y = from.center_y;
    } else if (from.span == to.span) {
      v.center_x = (fx + dx * t).with_bits(view_bits(v));
      v.center_y = (fy + dy * t).with_bits(view_bits(v));
    } else {
      // The way still to go, (s - to) / (from - to), in the extended range and from the end it
      // is measured to: taken as 1 - u in double it kept none of its bits once the span was
      // 1e-16 of the first, and the zoom's point jumped across the frame.
      const FloatExp left = quotient(v.span - to.span, from.span - to.span);
      v.center_x = to.center_x.with_bits(bits).plus(-(to_floatexp(dx) * left), view_bits(v));
      v.center_y = to.center_y.with_bits(bits).plus(-(to_floatexp(dy) * left), view_bits(v));
    }
    views.push_back(std::move(v));
  }
  View last = to;
  last.max_iter = from.max_iter;
  views.push_back(std::move(last));
  return views;
}

View zoom_about(View v, double factor, double px, double py, int width, int height) {
  // The complex point under the cursor, off * d from the centre, stays under the cursor: the
  // centre moves towards it by (1 - 1/factor) of that offset.
  // At a limit of the span the factor is what is left to it, so the centre moves no further.
  const FloatExp span = held_span(quotient(v.span, to_floatexp(factor)));
  const double zoom = to_double(quotient(v.span, span));
  const glm::dvec2 off = from_centre(glm::dvec2(px, py), width, height);
  const FloatExp towards = pixel_size(v, width) * to_floatexp(1 - 1 / zoom);
  v.span = span;
  const int bits = view_bits(v, width);
  v.center_x = v.center_x.plus(to_floatexp(off.x) * towards, bits);
  v.center_y = v.center_y.plus(to_floatexp(off.y) * towards, bits);
  return held_in_range(std::move(v));
}

PrecisionStatus float_precision(const View& v, int width, int height, int mantissa_bits) {
  PrecisionStatus s;
  const double span = to_double(v.span);
  s.pixel_spacing = span / width;
  const double half_h = s.pixel_spacing * height / 2;
  const double largest = std::max(std::abs(v.center_x.to_double()) + span / 2,
                                  std::abs(v.center_y.to_double()) + half_h);
  if (mantissa_bits >= 53) {
    s.float_ulp = std::nextafter(largest, INFINITY) - largest;
  } else if (mantissa_bits > 24) {  // a double-float: its spacing by its bits, not a type's
    s.float_ulp = largest > 0 ? std::ldexp(1.0, std::ilogb(largest) - (mantissa_bits - 1)) : 0;
  } else {
    const float f = static_cast<float>(largest);
    s.float_ulp = std::nextafter(f, INFINITY) - f;
  }
  // Written to fail closed: a coordinate past float's range makes the ulp NaN, not a pass.
  s.exhausted = !(s.pixel_spacing >= 4 * s.float_ulp) || !(s.pixel_spacing >= DBL_MIN);
  return s;
}

}  // namespace mp
