// One definition of a view for the window, Ctrl+C, render and the sidecars: the view is of the
// area beside the panel (window_places.h's arithmetic), and render given the copied line writes
// that area pixel for pixel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "app/window_places.h"
#include "cli/options.h"
#include "cli/view_text.h"
#include "model/view.h"

namespace mp {
namespace {

// ImGui's default font at UI x1 (15 px, a line of 19 px), as the app draws it.
constexpr float kEm = 15, kLine = 19;

struct Screen {
  int width, height;
  float ui;
};
constexpr Screen kScreens[] = {{800, 600, 1},     {1280, 720, 1},     {1920, 1080, 1},
                               {800, 600, 1.25f}, {1280, 720, 1.25f}, {1920, 1080, 1.25f}};

// Ctrl+C's line given to render, as a user runs it: mandelpipe render --out x.png LINE.
RenderOptions render_line(const std::string& copied) {
  std::vector<std::string> args = {"mandelpipe", "render", "--out", "x.png"};
  std::istringstream words(copied);
  std::string w;
  words >> w;  // the program's name
  while (words >> w) args.push_back(w);
  const ParseResult r = parse_command_line(args);
  EXPECT_TRUE(r.options) << copied << ": " << r.err;
  return r.options ? std::get<RenderOptions>(*r.options) : RenderOptions{};
}

// The window renders its whole width by whole_window_view; render writes the area beside the
// panel. Column i of render's image is column left + i of the window's, every row the same.
void expect_same_pixels(const View& seen, const Screen& s) {
  const ScreenGeometry g = ScreenGeometry::of(
      {0, 0, static_cast<float>(s.width), static_cast<float>(s.height)}, kEm * s.ui, kLine * s.ui);
  const int left = static_cast<int>(std::lround(g.beside_panel().x));
  ASSERT_GT(left, 0);
  ASSERT_LT(left, s.width / 2);
  const PixelGrid window = pixel_grid(whole_window_view(seen, s.width, left), s.width, s.height);
  ViewState state;
  state.view = seen;
  const RenderOptions r = render_line(format_view_text(state, s.width - left, s.height));
  ASSERT_EQ(r.width, s.width - left);
  ASSERT_EQ(r.height, s.height);
  const PixelGrid image = pixel_grid(r.view, r.width, r.height);
  const std::string at = std::to_string(s.width) + "x" + std::to_string(s.height) + " at x" +
                         std::to_string(s.ui) + ", left " + std::to_string(left);
  // Within a thousandth of a pixel, everywhere across the image (or two of double's ulps there,
  // as pixel_grid's own arithmetic is in double).
  const double largest = std::abs(seen.center_x.to_double()) + 2;
  const double tolerance =
      std::max(1e-3 * window.dx, 2 * (std::nextafter(largest, INFINITY) - largest));
  for (const int i : {0, r.width / 3, r.width / 2, r.width - 1}) {
    const double xw = window.x0 + (left + i) * window.dx, xr = image.x0 + i * image.dx;
    EXPECT_NEAR(xr, xw, tolerance) << at << ", column " << i;
  }
  for (const int j : {0, r.height / 2, r.height - 1})
    EXPECT_NEAR(image.y0 + j * image.dy, window.y0 + j * window.dy, tolerance)
        << at << ", row " << j;
  EXPECT_NEAR(image.dx, window.dx, 1e-9 * window.dx) << at;
  // The area's centre is the view's: a point given as --center is in the middle of what is seen,
  // not at the panel's edge.
  const double middle = window.x0 + (left + (s.width - left) / 2.0 - 0.5) * window.dx;
  EXPECT_NEAR(middle, seen.center_x.to_double(), tolerance) << at;
}

TEST(Framing, CopiedViewRendersWhatIsBesideThePanel) {
  for (const Screen& s : kScreens) {
    const ScreenGeometry g =
        ScreenGeometry::of({0, 0, static_cast<float>(s.width), static_cast<float>(s.height)},
                           kEm * s.ui, kLine * s.ui);
    const int left = static_cast<int>(std::lround(g.beside_panel().x));
    // Home: the whole set fitted beside the panel; a bookmark-like view; one past float, in
    // double.
    for (const View& seen : {fitted_set(s.width - left, s.height),
                             view_at(-0.743643887037151, 0.13182590420533, 0.0025, 4096),
                             *parse_view("-1.7490812690237", "-0.0000000000011", "3e-9", 20000)})
      expect_same_pixels(seen, s);
  }
}

// Home holds the whole set within the area beside the panel, at every size.
TEST(Framing, HomeFitsTheWholeSetBesideThePanel) {
  for (const Screen& s : kScreens) {
    const ScreenGeometry g =
        ScreenGeometry::of({0, 0, static_cast<float>(s.width), static_cast<float>(s.height)},
                           kEm * s.ui, kLine * s.ui);
    const int left = static_cast<int>(std::lround(g.beside_panel().x));
    const int w = s.width - left;
    const PixelGrid p = pixel_grid(fitted_set(w, s.height), w, s.height);
    EXPECT_LE(p.x0, -2.0) << s.width;
    EXPECT_GE(p.x0 + (w - 1) * p.dx, 0.47) << s.width;
    EXPECT_GE(p.y0, 1.12) << s.width;
    EXPECT_LE(p.y0 + (s.height - 1) * p.dy, -1.12) << s.width;
  }
  // render with no view takes the same fit of its own image.
  const ParseResult r = parse_command_line({"mandelpipe", "render", "--out", "x.png"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(std::get<RenderOptions>(*r.options).view, fitted_set(1920, 1080));
}

// Tab, or a new UI size, changes what the panel covers: the image stays, so the view of what is
// beside the panel follows it, and back again it is the same view.
TEST(Framing, ThePanelComingAndGoingKeepsTheImage) {
  const View seen = view_at(-0.75, 0.1, 0.02, 2048);
  const View whole = whole_window_view(seen, 1280, 504);
  const View hidden = view_beside(whole, 1280, 0);
  EXPECT_EQ(hidden, whole);
  const View back = view_beside(whole_window_view(hidden, 1280, 0), 1280, 504);
  EXPECT_NEAR(back.center_x.to_double(), seen.center_x.to_double(), 1e-15);
  EXPECT_NEAR(to_double(back.span), to_double(seen.span), 1e-15);
  EXPECT_EQ(whole_window_view(seen, 1280, 0), seen);
}

}  // namespace
}  // namespace mp
