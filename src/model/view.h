// The view on the complex plane and the navigation arithmetic. The centre keeps as many bits as
// the depth needs (BigReal) and the span has an exponent of its own (FloatExp), so that a view
// at span 1e-500 pans and zooms as one at span 1 does; the kernels get double (or float) pixel
// coordinates from pixel_grid(), fine for shallow views only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floatexp.h"
#include "kernel_params.h"
#include "model/big_real.h"

namespace mp {

inline constexpr int kMaxImageSize = 16384;
static_assert(kMaxImageSize <= kMaxTileRefSize, "the tile queue's packed tiles must reach");
inline constexpr unsigned kMaxIterations = 10'000'000;
// The farthest a centre coordinate goes from 0: the set lies within 2 of it, and float's
// precision check needs the view's coordinates finite in float.
inline constexpr double kMaxCentre = 1e3;

struct View {
  BigReal center_x = BigReal(-0.5);
  BigReal center_y;
  FloatExp span = to_floatexp(3.0);  // width of the image in the complex plane; square pixels
  unsigned max_iter = 1024;

  bool operator==(const View& o) const {
    return center_x == o.center_x && center_y == o.center_y && span == o.span &&
           max_iter == o.max_iter;
  }
  bool operator!=(const View& o) const { return !(*this == o); }
};

// The widest span a view takes: the whole set fits in 4, and past this a view shows a dot while
// its pixel grid heads for double's overflow.
inline constexpr double kMaxSpan = 64;
// The narrowest: half the extended range's exponent, so that a pixel's size and the offsets
// under it stay inside that range.
inline constexpr FloatExp kMinSpan{1.0, kZeroExp / 2 - 1};
// A span within [kMinSpan, kMaxSpan], the nearest end for one outside it.
FloatExp held_span(FloatExp span);
// A view's span as typed: parse_span's, and nothing outside [kMinSpan, kMaxSpan].
std::optional<FloatExp> parse_view_span(std::string_view decimal);

// A view given in doubles (the fitted home view, tests).
View view_at(double x, double y, double span, unsigned max_iter = 1024);
// A view given in decimal text: the span, then the centre at the bits the span needs; nothing
// where one of them is not a number (or the span not > 0).
std::optional<View> parse_view(std::string_view x, std::string_view y, std::string_view span,
                               unsigned max_iter = 1024);

// The bits the centre needs at this depth: those that resolve a pixel of an image `width`
// pixels wide, -log2(span / width), and 32 more as a margin; at least 64.
int view_bits(const View& v, int width = kMaxImageSize);
// Significant digits a centre coordinate is written with at least: a pixel of the widest image
// resolved and 3 guard digits, at least 17 (what a double needs, so shallow views keep what they
// had).
int centre_digits(const View& v);
// A view that the arithmetic below keeps finite: the span held within [kMinSpan, kMaxSpan], each
// centre coordinate within kMaxCentre of 0.
View held_in_range(View v);
// A centre coordinate as text, read back at view_bits(v) (what a view's files and its one-line
// form hold): at least centre_digits(v), more (a few at most) where the value needs them to read
// back the same, so that a view written and read is the same view.
std::string centre_text(const BigReal& coordinate, const View& v);
// A coordinate as typed, at view_bits(v); nothing where it is not a number or past kMaxCentre.
std::optional<BigReal> parse_centre(std::string_view decimal, const View& v);

// from * (to / from)^t, for spans of any exponent.
FloatExp span_between(FloatExp from, FloatExp to, double t);

// A zoom as a user makes it: `steps` views about one centre, the span shrinking (or growing)
// by the same factor each step from `from` to `to`.
struct ZoomPath {
  BigReal x, y;
  FloatExp from, to;
  int steps = 0;  // >= 1; one step is the first view alone
  unsigned iters = 1024;
};
std::vector<View> zoom_views(const ZoomPath& z);
// A zoom from one view to another in `frames` views (at least 2): spans in geometric steps (in
// log space, so that 1e-3 to 1e-600 works) and the centre moving so that the point the two views
// share stays put on screen (a pure zoom), or straight across when the spans are equal; the
// first view `from`, the last `to` with from's limit.
std::vector<View> zoom_sequence(const View& from, const View& to, int frames);

// One definition of a view for the window, its copied line, render and every sidecar: a view
// fills an image by its width, and in the window that image is the area beside the panel, the
// `left` framebuffer pixels under the panel not counted (0 with the panel hidden). The window
// renders its whole width, by the view these give: pixel left + i of the window is pixel i of
// the image render writes of the view at (width - left) x height.
View whole_window_view(View seen, int width, int left);
// The inverse: the view of the area right of `left` from the whole window's.
View view_beside(View whole, int width, int left);

// The whole set (re -2..0.47, im -1.12..1.12) with a margin, fitted to an image of width x
// height: the view the window starts at and render takes where no view is given.
View fitted_set(int width, int height, unsigned max_iter = 1024);

// Pixel centres: c(px, py) = centre + ((px + 0.5 - w/2) d, (h/2 - py - 0.5) d), d = span / w.
PixelGrid pixel_grid(const View& v, int width, int height);

// The point under the cursor follows it: moving the mouse by (dx, dy) pixels moves the view
// (held_in_range, as zoom_about's).
View pan_by_pixels(View v, double dx_px, double dy_px, int width, int height);
// Zoom by `factor` (> 1 zooms in) keeping the complex point under pixel (px, py) fixed; at the
// span's limits it zooms only as far as they allow.
View zoom_about(View v, double factor, double px, double py, int width, int height);

struct PrecisionStatus {
  bool exhausted = false;    // neighbouring pixels are no longer distinct in float
  double pixel_spacing = 0;  // d = span / width
  double float_ulp = 0;      // spacing of floats at the largest coordinate in view
};
// Precision runs out when the pixel spacing nears the ulp at the view's coordinates: below 4
// ulps pixels visibly collapse into blocks. A spacing below double's normal range is exhausted
// for every arithmetic here. `mantissa_bits`: of the variant's arithmetic (24
// float, 48 double-float, 53 double).
PrecisionStatus float_precision(const View& v, int width, int height, int mantissa_bits = 24);

}  // namespace mp
