#include "app/precision_banner.h"

#include <imgui.h>

#include <algorithm>

#include "model/variant_table.h"

namespace mp {

float draw_precision_banner(const View& view, VariantId variant, int fb_width, int fb_height,
                            const Layout& layout) {
  const VariantInfo& vi = variant_info(variant);
  const bool fp64 = vi.fp64, df64 = vi.mantissa_bits == 48;
  const PrecisionStatus p =
      float_precision(view, std::max(fb_width, 1), std::max(fb_height, 1), vi.mantissa_bits);
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
      fp64   ? "Double"
      : df64 ? "Double-float"
             : "Float",
      p.pixel_spacing, p.float_ulp,
      fp64   ? ""
      : df64 ? " The fp64 variant goes deeper."
             : " The df64 and fp64 variants go deeper.");
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
  const float height = ImGui::GetWindowHeight() + layout.pad;
  ImGui::End();
  return height;
}

}  // namespace mp
