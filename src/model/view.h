// The view on the complex plane and the navigation arithmetic (in double precision; the
// kernels get float pixel coordinates from pixel_grid()).
#pragma once

#include <vector>

#include "kernel_params.h"

namespace mp {

inline constexpr int kMaxImageSize = 16384;
static_assert(kMaxImageSize <= kMaxTileRefSize, "the tile queue's packed tiles must reach");
inline constexpr unsigned kMaxIterations = 10'000'000;

struct View {
  double center_x = -0.5;
  double center_y = 0.0;
  double span = 3.0;  // width of the image in the complex plane; pixels are square
  unsigned max_iter = 1024;

  bool operator==(const View& o) const {
    return center_x == o.center_x && center_y == o.center_y && span == o.span &&
           max_iter == o.max_iter;
  }
};

// A zoom as a user makes it: `steps` views about one centre, the span shrinking (or growing)
// by the same factor each step from `from` to `to`.
struct ZoomPath {
  double x = 0, y = 0, from = 0, to = 0;
  int steps = 0;  // >= 1; one step is the first view alone
  unsigned iters = 1024;
};
std::vector<View> zoom_views(const ZoomPath& z);

// Pixel centres: c(px, py) = centre + ((px + 0.5 - w/2) d, (h/2 - py - 0.5) d), d = span / w.
PixelGrid pixel_grid(const View& v, int width, int height);

// The point under the cursor follows it: moving the mouse by (dx, dy) pixels moves the view.
View pan_by_pixels(View v, double dx_px, double dy_px, int width, int height);
// Zoom by `factor` (> 1 zooms in) keeping the complex point under pixel (px, py) fixed.
View zoom_about(View v, double factor, double px, double py, int width, int height);

struct PrecisionStatus {
  bool exhausted = false;    // neighbouring pixels are no longer distinct in float
  double pixel_spacing = 0;  // d = span / width
  double float_ulp = 0;      // spacing of floats at the largest coordinate in view
};
// Precision runs out when the pixel spacing nears the ulp at the view's coordinates: below 4
// ulps pixels visibly collapse into blocks. `mantissa_bits`: of the variant's arithmetic (24
// float, 48 double-float, 53 double).
PrecisionStatus float_precision(const View& v, int width, int height, int mantissa_bits = 24);

}  // namespace mp
