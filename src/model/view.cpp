#include "view.h"

#include <algorithm>
#include <cmath>
#include <glm/vec2.hpp>

namespace mp {
namespace {

glm::dvec2 centre(const View& v) {
  return {v.center_x, v.center_y};
}

// From the image centre to a point given in pixels, in pixels along the plane's axes: rows go
// down while y goes up. Each axis subtracts in its own order so that a zero offset keeps its
// sign as the scalar arithmetic it replaced did.
glm::dvec2 from_centre(glm::dvec2 pixel, int width, int height) {
  return {pixel.x - width / 2.0, height / 2.0 - pixel.y};
}

}  // namespace

PixelGrid pixel_grid(const View& v, int width, int height) {
  const double d = v.span / width;
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
  const glm::dvec2 c = centre(v) - glm::dvec2(dx_px, -dy_px) * (v.span / width);
  v.center_x = c.x;
  v.center_y = c.y;
  return v;
}

std::vector<View> zoom_views(const ZoomPath& z) {
  std::vector<View> views;
  for (int k = 0; k < z.steps; ++k) {
    // Each span from the first by a power, not by repeated multiplying: no drift along the path.
    const double t = z.steps > 1 ? static_cast<double>(k) / (z.steps - 1) : 0.0;
    views.push_back({z.x, z.y, z.from * std::pow(z.to / z.from, t), z.iters});
  }
  return views;
}

View zoom_about(View v, double factor, double px, double py, int width, int height) {
  // Complex point under the cursor before the zoom...
  const glm::dvec2 under =
      centre(v) + from_centre(glm::dvec2(px, py), width, height) * (v.span / width);
  v.span /= factor;
  // ...stays under the cursor after it.
  const glm::dvec2 c = under - (under - centre(v)) / factor;
  v.center_x = c.x;
  v.center_y = c.y;
  return v;
}

PrecisionStatus float_precision(const View& v, int width, int height, int mantissa_bits) {
  PrecisionStatus s;
  s.pixel_spacing = v.span / width;
  const double half_h = s.pixel_spacing * height / 2;
  const double largest = std::max(std::abs(v.center_x) + v.span / 2, std::abs(v.center_y) + half_h);
  if (mantissa_bits >= 53) {
    s.float_ulp = std::nextafter(largest, INFINITY) - largest;
  } else if (mantissa_bits > 24) {  // a double-float: its spacing by its bits, not a type's
    s.float_ulp = largest > 0 ? std::ldexp(1.0, std::ilogb(largest) - (mantissa_bits - 1)) : 0;
  } else {
    const float f = static_cast<float>(largest);
    s.float_ulp = std::nextafter(f, INFINITY) - f;
  }
  s.exhausted = s.pixel_spacing < 4 * s.float_ulp;
  return s;
}

}  // namespace mp
