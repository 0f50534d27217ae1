#include "app/layout.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/overlay.h"

namespace mp {

Layout Layout::current(float scale) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize();
  Layout l;
  l.pad = std::round(0.6f * em);
  // Wide enough for the instruction-mix table and the variant buttons, three to a row.
  l.panel_width = std::min(33.0f * em, vp->WorkSize.x * 0.45f);
  l.overlay_width = PipeOverlay::width(scale);
  l.x = vp->WorkPos.x;
  l.y = vp->WorkPos.y;
  l.width = vp->WorkSize.x;
  l.height = vp->WorkSize.y;
  return l;
}

void Layout::place_panel() const {
  const ImGuiCond when = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(x + pad, y + pad), when);
  ImGui::SetNextWindowSize(ImVec2(panel_width, height - 2 * pad), when);
}

float Layout::place_banner() const {
  const float left = right_of_panel();
  const float wrap = std::max(x + width - pad - left, 16.0f * ImGui::GetFontSize());
  ImGui::SetNextWindowPos(ImVec2(left, y + pad), ImGuiCond_Always);
  return wrap - 2 * ImGui::GetStyle().WindowPadding.x;
}

void Layout::place_tool_window(float preferred_width, bool refit) const {
  const float left = right_of_panel(), em = ImGui::GetFontSize();
  float room = x + width - pad - left;
  if (overlay_shown && room - overlay_width - pad >= 30 * em) room -= overlay_width + pad;
  const float w = std::max(std::min(preferred_width, room), 0.0f);
  // A quarter down: under the precision banner.
  const float top = y + height * 0.25f;
  const ImGuiCond when = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(left, top), when);
  ImGui::SetNextWindowSize(ImVec2(w, 0), refit ? ImGuiCond_Always : when);
  // No taller than the rest of the window, so that a long table scrolls instead of running off.
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, y + height - pad - top));
}

void Layout::place_help_window(float preferred_width) const {
  const float w = std::min(preferred_width, x + width - pad - right_of_panel());
  const ImGuiCond when = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(x + width - pad, y + pad), when, ImVec2(1, 0));
  ImGui::SetNextWindowSize(ImVec2(w, 0), when);
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, height - 2 * pad));
}

View fit_set_beside_panel(View v, int fb_width, int fb_height, double panel_right) {
  // The set lies in re [-2, 0.47], im [-1.12, 1.12]; a margin around it.
  constexpr double left = -2.1, right = 0.57, half_height = 1.2;
  const double free = fb_width - panel_right;
  if (fb_width <= 0 || fb_height <= 0 || free < fb_width * 0.3) return v;
  const double per_px = std::max((right - left) / free, 2 * half_height / fb_height);
  v.span = per_px * fb_width;
  // The set's middle at the middle of the free part.
  v.center_x = (left + right) / 2 - (panel_right + free / 2 - fb_width / 2.0) * per_px;
  v.center_y = 0;
  return v;
}

}  // namespace mp
