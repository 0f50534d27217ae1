#include "app/precision_banner.h"

#include <imgui.h>

#include <algorithm>

#include "model/precision_choice.h"
#include "model/variant_table.h"

namespace mp {

void draw_precision_banner(const View& view, const PrecisionChoice& choice, int fb_width,
                           int fb_height, Layout& layout) {
  const VariantInfo& vi = variant_info(choice.variant);
  const bool fp64 = vi.fp64, df64 = vi.mantissa_bits == 48;
  PrecisionStatus p =
      float_precision(view, std::max(fb_width, 1), std::max(fb_height, 1), vi.mantissa_bits);
  // Perturbation's limit is its differences' exponent range, which the choice says; a plain
  // variant's limit does not apply.
  if (choice.perturbation) p.exhausted = choice.exhausted;
  if (!p.exhausted && !choice.deeper) return;
  const float wrap = layout.place_banner();
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("##precision", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  layout.placed(FixedWindow::Banner);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  if (choice.deeper) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.55f, 0.85f, 1, 1));
    ImGui::TextWrapped("%s (K).", choice.why.c_str());
    ImGui::PopStyleColor();
  }
  if (p.exhausted && choice.perturbation) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.2f, 1));
    ImGui::TextWrapped(
        "%s's differences leave double's exponent range: pixel spacing %s is under 2^%d, and "
        "they underflow. perturb-x goes on at any depth: unpin (K) to switch as you zoom.",
        vi.name.data(),
        span_text(quotient(view.span, to_floatexp(std::max(fb_width, 1))), 3).c_str(),
        kDoubleDeltaExponent);
    ImGui::PopStyleColor();
  } else if (p.exhausted) {
    // Short of fp64 only where the user pinned the variant: a move would have gone deeper.
    const char* deeper = " perturbation goes on at any depth: unpin (K) to switch as you zoom.";
    if (!fp64)
      deeper = df64 ? " fp64 and perturbation go deeper: unpin (K) to switch as you zoom."
                    : " df64, fp64 and perturbation go deeper: unpin (K) to switch as you zoom.";
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.6f, 0.2f, 1));
    ImGui::TextWrapped(
        "%s precision exhausted: pixel spacing %s is under 4 ulps (%.3g) at these coordinates; "
        "neighbouring pixels merge.%s",
        fp64   ? "Double"
        : df64 ? "Double-float"
               : "Float",
        span_text(quotient(view.span, to_floatexp(std::max(fb_width, 1))), 3).c_str(), p.float_ulp,
        deeper);
    ImGui::PopStyleColor();
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace mp
