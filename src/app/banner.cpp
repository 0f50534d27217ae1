#include "app/banner.h"

#include <imgui.h>

namespace mp {

void draw_banner(const std::vector<BannerLine>& lines, Layout& layout) {
  if (lines.empty()) return;
  const float wrap = layout.place_banner();
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("##banner", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  layout.placed(FixedWindow::Banner);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
  for (const BannerLine& l : lines) {
    ImGui::PushStyleColor(ImGuiCol_Text, l.tone == Tone::Warning ? ImVec4(1, 0.6f, 0.2f, 1)
                                                                 : ImVec4(0.55f, 0.85f, 1, 1));
    ImGui::TextWrapped("%s", l.text.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace mp
