#include "app/layout.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace mp {
namespace {

// The fixed windows' names among the places, in FixedWindow's order, and the banner's band.
constexpr const char* kFixed[] = {"panel", "banner", "pipe overlay", "SASS view"};
constexpr const char* kPanel = kFixed[static_cast<int>(FixedWindow::Panel)];
constexpr const char* kBanner = kFixed[static_cast<int>(FixedWindow::Banner)];
constexpr const char* kOverlay = kFixed[static_cast<int>(FixedWindow::Overlay)];
constexpr const char* kBand = "banner band";

Rect current_window() {
  const ImVec2 p = ImGui::GetWindowPos(), s = ImGui::GetWindowSize();
  return {p.x, p.y, s.x, s.y};
}

}  // namespace

Layout Layout::current() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  Layout l;
  static_cast<ScreenGeometry&>(l) =
      ScreenGeometry::of({vp->WorkPos.x, vp->WorkPos.y, vp->WorkSize.x, vp->WorkSize.y},
                         ImGui::GetFontSize(), ImGui::GetTextLineHeightWithSpacing());
  return l;
}

void Layout::begin(WindowPlaces& places, bool reset) {
  places_ = &places;
  reset_ = reset;
  places.start_frame(area(), pad, reset);
  places.fixed(kBand, band());
}

Rect Layout::band() const {
  const auto banner = places_ ? places_->last(kBanner) : std::nullopt;
  return banner_band(banner ? banner->h : 0);
}

void Layout::place_panel() const {
  // Always where the layout says, at every size and UI scale: the view is of the area beside it.
  const Rect r = panel_column();
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), ImGuiCond_Always);
}

void Layout::panel_hidden() {
  if (places_) places_->fixed(kPanel, places_->last(kPanel).value_or(panel_column()));
}

float Layout::place_banner() const {
  const Rect b = band();
  ImGui::SetNextWindowPos(ImVec2(b.x, b.y), ImGuiCond_Always);
  return std::max(b.w, 16.0f * em) - 2 * ImGui::GetStyle().WindowPadding.x;
}

float Layout::place_overlay() const {
  const Rect b = band();
  const float top = b.bottom() + pad;
  ImGui::SetNextWindowPos(ImVec2(b.right(), top), ImGuiCond_Always, ImVec2(1, 0));
  // No taller than the area below the band: in a small window (or at a large UI size) its lines
  // scroll instead of running past the window's edge.
  const Rect a = area();
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0),
                                      ImVec2(FLT_MAX, std::max(a.bottom() - top, 6 * line)));
  return b.w - 2 * ImGui::GetStyle().WindowPadding.x;
}

float Layout::place_sass_view() const {
  // Under the overlay where it shows, else under the band; its text wraps at the column's width.
  const Rect b = band();
  const auto overlay = places_ ? places_->last(kOverlay) : std::nullopt;
  const bool under_overlay = overlay && places_->shown(kOverlay);
  const float top = (under_overlay ? overlay->bottom() : b.bottom()) + pad;
  const Rect a = area();
  ImGui::SetNextWindowPos(ImVec2(a.right(), a.bottom()), ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0),
                                      ImVec2(b.w, std::max(a.bottom() - top, 6 * line)));
  return b.w - 2 * ImGui::GetStyle().WindowPadding.x - ImGui::GetStyle().ScrollbarSize;
}

void Layout::placed(FixedWindow w) {
  if (places_) places_->fixed(kFixed[static_cast<int>(w)], current_window());
}

void Layout::begin_tool_window(const char* title, bool* open, const WindowWish& wish, bool refit) {
  const WindowPlaces::Placement p = places_->place(title, wish);
  const bool fit = places_->refit(title, refit);
  if (p.move_to) {
    const ImGuiCond when = p.first && !reset_ ? ImGuiCond_FirstUseEver : ImGuiCond_Always;
    ImGui::SetNextWindowPos(ImVec2(p.move_to->x, p.move_to->y), when);
    ImGui::SetNextWindowSize(ImVec2(p.move_to->w, 0), when);
  } else if (fit) {
    const auto now = places_->last(title);
    ImGui::SetNextWindowSize(ImVec2(now ? now->w : wish.width, 0), ImGuiCond_Always);
  }
  // No taller than the room below it, so that a long table scrolls instead of covering what is
  // under it or running off the window.
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, p.max_height));
  // A place the layout chose is chosen again next run, not read back from imgui.ini; one the
  // user chose is kept there. The first Begin reads it, if imgui.ini has one.
  ImGui::Begin(title, open, p.users || p.first ? 0 : ImGuiWindowFlags_NoSavedSettings);
  places_->seen(title, current_window());
}

}  // namespace mp
