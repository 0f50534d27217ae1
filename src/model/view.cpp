#include "view.h"

#include <algorithm>
#include <cmath>

namespace mp {

PixelGrid pixel_grid(const View& v, int width, int height) {
  const double d = v.span / width;
  PixelGrid g;
  g.width = width;
  g.height = height;
  g.x0 = v.center_x + (0.5 - width / 2.0) * d;
  g.y0 = v.center_y + (height / 2.0 - 0.5) * d;
  g.dx = d;
  g.dy = -d;
  return g;
}

View pan_by_pixels(View v, double dx_px, double dy_px, int width, int /*height*/) {
  const double d = v.span / width;
  v.center_x -= dx_px * d;
  v.center_y += dy_px * d;
  return v;
}

View zoom_about(View v, double factor, double px, double py, int width, int height) {
  const double d = v.span / width;
  // Complex point under the cursor before the zoom...
  const double ux = v.center_x + (px - width / 2.0) * d;
  const double uy = v.center_y + (height / 2.0 - py) * d;
  v.span /= factor;
  // ...stays under the cursor after it.
  v.center_x = ux - (ux - v.center_x) / factor;
  v.center_y = uy - (uy - v.center_y) / factor;
  return v;
}

PrecisionStatus float_precision(const View& v, int width, int height, bool fp64) {
  PrecisionStatus s;
  s.pixel_spacing = v.span / width;
  const double half_h = s.pixel_spacing * height / 2;
  const double largest = std::max(std::abs(v.center_x) + v.span / 2, std::abs(v.center_y) + half_h);
  if (fp64) {
    s.float_ulp = std::nextafter(largest, INFINITY) - largest;
  } else {
    const float f = static_cast<float>(largest);
    s.float_ulp = std::nextafter(f, INFINITY) - f;
  }
  s.exhausted = s.pixel_spacing < 4 * s.float_ulp;
  return s;
}

}  // namespace mp
