#include "app/window_places.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mp {
namespace {

std::string text(const Rect& r) {
  return "{" + std::to_string(r.x) + ", " + std::to_string(r.y) + ", " + std::to_string(r.w) +
         " x " + std::to_string(r.h) + "}";
}

TEST(FreePlace, TakesTheWishedSizeAtItsCorner) {
  const Rect area{10, 10, 1000, 800};
  const auto tl = free_place(area, {}, 8, {400, 300, 100, 100, Corner::TopLeft});
  const auto tr = free_place(area, {}, 8, {400, 300, 100, 100, Corner::TopRight});
  const auto br = free_place(area, {}, 8, {400, 300, 100, 100, Corner::BottomRight});
  ASSERT_TRUE(tl && tr && br);
  EXPECT_EQ(text(*tl), text({10, 10, 400, 300}));
  EXPECT_EQ(text(*tr), text({610, 10, 400, 300}));
  EXPECT_EQ(text(*br), text({610, 510, 400, 300}));
}

TEST(FreePlace, KeepsAGapFromWhatIsTakenAndShrinksToTheRoomThere) {
  const Rect area{0, 0, 1000, 600};
  const Rect column{0, 0, 300, 600}, top_right{700, 0, 300, 200};
  const auto r = free_place(area, {column, top_right}, 10, {800, 500, 200, 100});
  ASSERT_TRUE(r);
  // Beside the column and under the corner window is larger than between the two at the top.
  EXPECT_EQ(text(*r), text({310, 210, 690, 390}));
  EXPECT_FALSE(r->overlaps(column));
  EXPECT_FALSE(r->overlaps(top_right));
  // The room between them at the top (380 wide) is taken where the window wishes no more.
  const auto narrow = free_place(area, {column, top_right}, 10, {380, 300, 200, 100});
  ASSERT_TRUE(narrow);
  EXPECT_EQ(text(*narrow), text({310, 0, 380, 300}));
}

TEST(FreePlace, NineTenthsOfTheWishIsAsGoodAsAllOfItAndTheCornerDecides) {
  // Left of the corner window there is 95% of the width wished at the top; under it, all of it
  // but lower down: the top wins.
  const Rect area{0, 0, 1000, 1000};
  const Rect top_right{620, 0, 380, 300};
  const auto r = free_place(area, {top_right}, 0, {650, 500, 200, 100});
  ASSERT_TRUE(r);
  EXPECT_EQ(text(*r), text({0, 0, 620, 500}));
}

TEST(FreePlace, NothingWhereNoFreePlaceHoldsTheMinimum) {
  const Rect area{0, 0, 800, 600};
  EXPECT_FALSE(free_place(area, {{0, 0, 800, 500}}, 10, {400, 300, 200, 100}));
  EXPECT_FALSE(free_place(area, {}, 10, {400, 300, 900, 100}));
}

TEST(RoomBelow, StopsAGapAboveTheNextWindowUnderItAndIgnoresThoseBesideIt) {
  const Rect area{0, 0, 1000, 800};
  const Rect self{100, 100, 400, 50};
  EXPECT_FLOAT_EQ(room_below(area, {}, 10, self), 700);
  EXPECT_FLOAT_EQ(room_below(area, {{200, 500, 100, 100}}, 10, self), 390);
  EXPECT_FLOAT_EQ(room_below(area, {{600, 300, 100, 100}}, 10, self), 700) << "beside it";
  EXPECT_FLOAT_EQ(room_below(area, {{0, 0, 1000, 90}}, 10, self), 700) << "above it";
}

// The window as the app draws it at UI scale 1: ImGui's default font at 15 px, a line 19 px
// with its spacing; the pipe overlay 574 px wide (its fixed columns, as a screenshot shows it),
// its height on the CPU path (no pipe rows) and on the CUDA path (eight rows, counted from
// PipeOverlay::draw's arithmetic).
constexpr float kEm = 15, kLine = 19, kOverlayWidth = 574;
constexpr float kCpuOverlayHeight = 130, kGpuOverlayHeight = 430;
const char* const kExperiments = "Experiments (E)";
const char* const kCompare = "Compare all variants (C)";
const char* const kSweep = "Sine balance (sin-ratio)";
const char* const kHelp = "Keys and mouse (F1)";

// A window open on screen: its wish as its draw call makes it, and the height its content would
// fit to (ImGui's auto-fit), which the room below it may cut to a scrolling one.
struct Open {
  std::string name;
  WindowWish wish;
  float content_height;
};

// Frames of the window as App::draw_windows lays them out: the band and the panel, the
// overlay under the band at the right, then each tool window placed and drawn where it is.
class Screen {
 public:
  Screen(float width, float height, float overlay_height)
      : g_(ScreenGeometry::of({0, 0, width, height}, kEm, kLine)),
        overlay_height_(overlay_height) {}

  const ScreenGeometry& geometry() const { return g_; }
  // The wishes of experiments_window.cpp, compare_window.cpp, sweep_window.cpp, help_window.cpp.
  Open experiments(float content = 700) const { return {kExperiments, g_.wish(54, 30), content}; }
  Open compare(float content = 420) const { return {kCompare, g_.wish(70, 18), content}; }
  Open sweep(float content = 330) const { return {kSweep, g_.wish(54, 16), content}; }
  Open help(float content = 760) const {
    return {kHelp, g_.wish(36, 36, Corner::TopRight), content};
  }

  // One frame with these tool windows open, in the app's drawing order.
  void frame(bool overlay, const std::vector<Open>& open, bool relayout = false) {
    places_.start_frame(g_.area(), g_.pad, relayout);
    const Rect band = g_.banner_band(0);
    places_.fixed("banner band", band);
    fixed_ = {{"panel", g_.panel_column()}, {"banner band", band}};
    places_.fixed("panel", g_.panel_column());
    if (overlay) {
      const Rect o{band.right() - kOverlayWidth, band.bottom() + g_.pad, kOverlayWidth,
                   overlay_height_};
      places_.fixed("pipe overlay", o);
      fixed_["pipe overlay"] = o;
    }
    shown_.clear();
    for (const Open& w : open) {
      const WindowPlaces::Placement p = places_.place(w.name, w.wish);
      Rect r = p.move_to ? *p.move_to : *places_.last(w.name);
      if (const auto m = moved_.find(w.name); m != moved_.end()) {
        r = m->second;
        moved_.erase(m);
      }
      r.h = std::min(w.content_height, p.max_height);
      places_.seen(w.name, r);
      shown_[w.name] = r;
    }
  }
  // The user drags a window to x, y: it is there from the next frame on.
  void drag(const std::string& name, float x, float y) {
    Rect r = shown_.at(name);
    r.x = x;
    r.y = y;
    moved_[name] = r;
  }
  void resize(float width, float height) {
    g_ = ScreenGeometry::of({0, 0, width, height}, kEm, kLine);
  }

  const std::map<std::string, Rect>& shown() const { return shown_; }
  // Every pair of windows on screen, fixed ones and tool windows, that overlap; and those that
  // leave the viewport's margin.
  std::vector<std::string> problems() const {
    std::vector<std::pair<std::string, Rect>> all(fixed_.begin(), fixed_.end());
    all.insert(all.end(), shown_.begin(), shown_.end());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!all[i].second.inside(g_.area()))
        out.push_back(all[i].first + " " + text(all[i].second) + " leaves the viewport");
      for (std::size_t j = i + 1; j < all.size(); ++j)
        if (all[i].second.overlaps(all[j].second))
          out.push_back(all[i].first + " " + text(all[i].second) + " covers " + all[j].first + " " +
                        text(all[j].second));
    }
    return out;
  }
  // Every tool window open is at least its minimum size.
  void expect_usable(const std::vector<Open>& open) const {
    for (const Open& w : open) {
      const Rect& r = shown_.at(w.name);
      EXPECT_GE(r.w, w.wish.min_width) << w.name << " " << text(r);
      EXPECT_GE(r.h, std::min(w.content_height, w.wish.min_height)) << w.name << " " << text(r);
    }
  }

 private:
  ScreenGeometry g_;
  float overlay_height_;
  WindowPlaces places_;
  std::map<std::string, Rect> fixed_, shown_, moved_;
};

using Problems = std::vector<std::string>;

TEST(WindowPlaces, At1280x720OnTheCpuPathPanelOverlayExperimentsAndHelpLeaveEachOtherClear) {
  Screen s(1280, 720, kCpuOverlayHeight);
  // As the program tests open them: the overlay and an experiment from the command line, then F1.
  std::vector<Open> open = {s.experiments(230)};
  s.frame(true, open);
  s.frame(true, open);
  open.push_back(s.help());
  for (int i = 0; i < 3; ++i) s.frame(true, open);
  EXPECT_EQ(s.problems(), Problems{});
  s.expect_usable(open);
  // The experiments window under the overlay, help under it at the right.
  EXPECT_FLOAT_EQ(s.shown().at(kExperiments).x, s.geometry().right_of_panel());
  EXPECT_FLOAT_EQ(s.shown().at(kHelp).right(), s.geometry().area().right());
}

TEST(WindowPlaces, At1280x720WhereTheRoomRunsOutAPlacedWindowGivesUpHeightToANewOne) {
  Screen s(1280, 720, kCpuOverlayHeight);
  // F1 first: help takes the right of the window from the top; E then finds no room beside it
  // and takes help's height down to its least.
  std::vector<Open> open = {s.help()};
  s.frame(false, open);
  s.frame(false, open);
  open.insert(open.begin(), s.experiments(230));  // drawn before help, as in the app
  for (int i = 0; i < 3; ++i) s.frame(false, open);
  EXPECT_EQ(s.problems(), Problems{});
  s.expect_usable(open);
  // P: the overlay comes over both; they move under it, still clear of each other.
  for (int i = 0; i < 3; ++i) s.frame(true, open);
  EXPECT_EQ(s.problems(), Problems{});
  s.expect_usable(open);
}

TEST(WindowPlaces, At1280x720OnTheCudaPathNoToolWindowCoversTheFixedOnes) {
  // Four tool windows under a 430 px overlay do not fit in 1280x720: they may cover each other
  // where there is no room left, but never the panel, the banner's band or the overlay.
  Screen s(1280, 720, kGpuOverlayHeight);
  std::vector<Open> open;
  for (const Open& w : {s.experiments(), s.compare(), s.sweep(), s.help()}) {
    open.push_back(w);
    s.frame(true, open);
    s.frame(true, open);
  }
  for (const std::string& p : s.problems())
    for (const char* fixed : {"panel", "banner band", "pipe overlay"})
      EXPECT_EQ(p.find(fixed), std::string::npos) << p;
}

TEST(WindowPlaces, At1920x1080OnTheCudaPathEveryWindowOpenLeavesTheOthersClear) {
  Screen s(1920, 1080, kGpuOverlayHeight);
  std::vector<Open> open;
  for (const Open& w : {s.experiments(), s.compare(), s.sweep(), s.help()}) {
    open.push_back(w);
    s.frame(true, open);
    s.frame(true, open);
    EXPECT_EQ(s.problems(), Problems{}) << "after opening " << w.name;
  }
  s.expect_usable(open);
}

TEST(WindowPlaces, At1280x720OnTheCudaPathATableOpensUnderTheOverlay) {
  Screen s(1280, 720, kGpuOverlayHeight);
  for (const Open& w : {s.experiments(), s.compare(), s.sweep()}) {
    s.frame(true, {w});
    s.frame(true, {w});
    EXPECT_EQ(s.problems(), Problems{}) << w.name;
    s.expect_usable({w});
    EXPECT_GT(s.shown().at(w.name).y, s.geometry().banner_band(0).bottom() + kGpuOverlayHeight);
    s.frame(true, {});  // closed again
  }
}

TEST(WindowPlaces, AWindowPlacedMakesWayForTheOverlayAndOneTheUserMovedStays) {
  Screen s(1920, 1080, kGpuOverlayHeight);
  std::vector<Open> open = {s.experiments(), s.help()};
  s.frame(false, open);
  s.frame(false, open);
  EXPECT_EQ(s.problems(), Problems{});
  // P: the overlay comes at the top right, over where help opened; help moves out of its way.
  s.frame(true, open);
  s.frame(true, open);
  EXPECT_EQ(s.problems(), Problems{});
  // Help dragged over the overlay's place stays where the user put it.
  s.frame(false, open);
  s.drag(kHelp, 1300, 100);
  s.frame(false, open);
  s.frame(true, open);
  s.frame(true, open);
  EXPECT_FLOAT_EQ(s.shown().at(kHelp).x, 1300);
  EXPECT_FLOAT_EQ(s.shown().at(kHelp).y, 100);
  // Closed and opened again, it is still where the user put it.
  s.frame(true, {open[0]});
  s.frame(true, open);
  EXPECT_FLOAT_EQ(s.shown().at(kHelp).x, 1300);
}

TEST(WindowPlaces, AWindowGrowsOnlyIntoTheRoomBelowIt) {
  Screen s(1920, 1080, kCpuOverlayHeight);
  // The experiments window short before its result, the sweep opened under it; the result
  // comes and it fits its height anew: no further than the sweep's top.
  std::vector<Open> open = {s.experiments(230)};
  s.frame(false, open);
  open.push_back(s.sweep());
  s.frame(false, open);
  s.frame(false, open);
  open[0] = s.experiments(2000);
  s.frame(false, open);
  EXPECT_EQ(s.problems(), Problems{});
}

TEST(WindowPlaces, AViewportMadeSmallerMovesThePlacedWindowsBackIntoIt) {
  Screen s(1920, 1080, kCpuOverlayHeight);
  const std::vector<Open> open = {s.experiments(), s.help()};
  s.frame(true, open);
  s.frame(true, open);
  s.resize(1280, 720);
  s.frame(true, open);
  s.frame(true, open);
  for (const auto& [name, r] : s.shown()) EXPECT_TRUE(r.inside(s.geometry().area())) << name;
}

TEST(WindowPlaces, ANewUiSizePlacesEveryWindowAnewTheUsersToo) {
  Screen s(1920, 1080, kCpuOverlayHeight);
  const std::vector<Open> open = {s.experiments()};
  s.frame(false, open);
  s.drag(kExperiments, 1000, 600);
  s.frame(false, open);
  EXPECT_FLOAT_EQ(s.shown().at(kExperiments).x, 1000);
  s.frame(false, open, true);
  EXPECT_FLOAT_EQ(s.shown().at(kExperiments).x, s.geometry().right_of_panel());
}

TEST(ScreenGeometry, ThePanelTakesAColumnAndTheBandLiesRightOfIt) {
  const ScreenGeometry g = ScreenGeometry::of({0, 0, 1280, 720}, kEm, kLine);
  EXPECT_FLOAT_EQ(g.pad, 9);
  EXPECT_FLOAT_EQ(g.panel_width, 33 * kEm);
  EXPECT_EQ(text(g.panel_column()), text({9, 9, 495, 702}));
  const Rect band = g.banner_band(0);
  EXPECT_EQ(text(band), text({513, 9, 758, 3 * kLine + kEm}));
  EXPECT_FLOAT_EQ(g.banner_band(120).h, 120) << "a taller banner widens its band";
  // Narrow windows give the panel under half the width.
  EXPECT_FLOAT_EQ(ScreenGeometry::of({0, 0, 800, 600}, kEm, kLine).panel_width, 360);
}

TEST(WindowPlaces, NewContentFitsTheHeightThisFrameAndTheNext) {
  WindowPlaces places;
  EXPECT_FALSE(places.refit("Compare", false)) << "nothing came: the height stays";
  EXPECT_TRUE(places.refit("Compare", true));
  EXPECT_TRUE(places.refit("Compare", false)) << "imgui measures the new rows a frame late";
  EXPECT_FALSE(places.refit("Compare", false));
  EXPECT_TRUE(places.refit("Compare", true));
  EXPECT_TRUE(places.refit("Compare", true)) << "more content: two frames again from here";
  EXPECT_TRUE(places.refit("Compare", false));
  EXPECT_FALSE(places.refit("Compare", false));
  EXPECT_FALSE(places.refit("Experiments", false)) << "each window counts its own frames";
}

// The window at the sizes and UI scales people use: ImGui's default font at round(15 x scale) px,
// 7/13 of it a character (ProggyClean), and the style's sizes scaled (imgui_layer.cpp).
struct Size {
  float width, height, ui;
  float em() const { return std::round(kEm * ui); }
  float line() const { return em() + 4 * ui; }  // the font and ItemSpacing.y under it
  std::string name() const {
    return std::to_string(static_cast<int>(width)) + "x" +
           std::to_string(static_cast<int>(height)) + " at UI x" + std::to_string(ui);
  }
};
constexpr Size kSizes[] = {{800, 600, 1},     {1280, 720, 1},     {1920, 1080, 1},
                           {800, 600, 1.25f}, {1280, 720, 1.25f}, {1920, 1080, 1.25f}};

float text_px(const std::string& text, float em) {
  return static_cast<float>(text.size()) * em * 7 / 13;
}

// overlay.cpp's natural columns, in the same terms.
OverlayColumns natural_overlay(const Size& s) {
  const float gap = 8 * s.ui, em = s.em();
  return {gap,
          text_px("SM active", em) + gap,
          110 * s.ui,
          text_px("100.0", em) + gap,
          text_px("+000.0", em) + gap,
          80 * s.ui,
          text_px("0.000 ms <- limits (both)", em)};
}

TEST(Layout, ThePanelTakesTheWholeHeightAtEverySize) {
  for (const Size& s : kSizes) {
    const ScreenGeometry g = ScreenGeometry::of({0, 0, s.width, s.height}, s.em(), s.line());
    const Rect p = g.panel_column();
    EXPECT_FLOAT_EQ(p.bottom(), s.height - g.pad) << s.name();
    EXPECT_LE(p.right(), s.width / 2) << s.name() << ": the view keeps over half the width";
    // The panel's size is the size's and the UI scale's alone: back at a scale, it is as it was.
    const ScreenGeometry again = ScreenGeometry::of({0, 0, s.width, s.height}, s.em(), s.line());
    EXPECT_EQ(text(again.panel_column()), text(p)) << s.name();
  }
}

// The overlay sits at the right of the band beside the panel, as wide as its columns and padding:
// at every size its columns fit that band, so it never reaches over the panel.
TEST(Layout, TheOverlayKeepsClearOfThePanelAtEverySize) {
  for (const Size& s : kSizes) {
    const ScreenGeometry g = ScreenGeometry::of({0, 0, s.width, s.height}, s.em(), s.line());
    const Rect band = g.banner_band(0);
    const float padding = 2 * 8 * s.ui;
    const OverlayColumns c = fit_overlay_columns(natural_overlay(s), band.w - padding, 40 * s.ui);
    const Rect overlay{band.right() - c.width() - padding, band.bottom() + g.pad,
                       c.width() + padding, kGpuOverlayHeight * s.ui};
    EXPECT_FALSE(overlay.overlaps(g.panel_column())) << s.name();
    EXPECT_GE(overlay.x, g.panel_column().right() + g.pad - 0.01f) << s.name();
    EXPECT_GE(c.bar, 40 * s.ui) << s.name() << ": the bars stay readable";
    // Where there is room, all of it: at full HD and at 1280x720 at x1.
    if (s.width >= 1280 && s.ui == 1)
      EXPECT_FLOAT_EQ(c.width(), natural_overlay(s).width()) << s.name();
  }
  // The order things give way in: the history first, then the bars, then the note.
  const OverlayColumns n{8, 80, 110, 48, 56, 80, 200};
  EXPECT_FLOAT_EQ(fit_overlay_columns(n, n.width() - 50, 40).plot, 30);
  EXPECT_FLOAT_EQ(fit_overlay_columns(n, n.width() - 70, 40).plot, 0) << "under half a bar";
  const OverlayColumns bars = fit_overlay_columns(n, n.width() - 120, 40);
  EXPECT_FLOAT_EQ(bars.bar, 70);
  EXPECT_FLOAT_EQ(bars.note, 200);
  const OverlayColumns least = fit_overlay_columns(n, n.width() - 200, 40);
  EXPECT_FLOAT_EQ(least.bar, 40);
  EXPECT_FLOAT_EQ(least.note, 0);
}

}  // namespace
}  // namespace mp
