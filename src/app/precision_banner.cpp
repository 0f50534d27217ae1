#include "app/precision_banner.h"

#include <imgui.h>

#include <algorithm>

#include "model/variant_table.h"

namespace mp {

float draw_precision_banner(const View& view, VariantId variant, int fb_width, int fb_height,
                            const Layout& layout) {
  const bool fp64 = variant_info(variant).fp64;
  const PrecisionStatus p =
      float_precision(view, std::max(fb_width, 1), std::max(fb_height, 1), fp64);
  if (!p.exhausted) return 0;
  const float wrap = layout.place_banner();
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("##precision", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.2f, 1));
  ImGui::TextWrapped(
      "%s precision exhausted: pixel spacing %.3g is under 4 ulps (%.3g) at these coordinates; "
      "neighbouring pixels merge.%s",
      fp64 ? "Double" : "Float", p.pixel_spacing, p.float_ulp,
      fp64 ? "" : " The fp64 variant (7) goes deeper.");
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  const float height = ImGui::GetWindowHeight() + layout.pad;
  ImGui::End();
  return height;
}

}  // namespace mp
