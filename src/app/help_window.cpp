#include "app/help_window.h"

#include <imgui.h>

#include "app/glossary.h"
#include "app/key_bindings.h"

namespace mp {

void draw_help_window(bool* open, Layout& layout) {
  // At the right, where it leaves the tool windows beside the panel in view.
  layout.begin_tool_window("Keys and mouse (F1)", open, layout.wish(36, 36, Corner::TopRight),
                           false);
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("key");
    ImGui::TableSetupColumn("does", ImGuiTableColumnFlags_WidthStretch);
    const auto row = [](const char* key, const char* what) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(key);
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s", what);
    };
    for (const MouseBinding& m : mouse_bindings()) row(m.gesture, m.what);
    for (const KeyBinding& k : key_bindings()) row(k.keys_text, k.what);
    ImGui::EndTable();
  }
  ImGui::Separator();
  ImGui::TextWrapped(
      "Keys act whenever no text field is being typed into. Terms with (?) explain themselves on "
      "hover:");
  for (const char* term : {"pipe", "XU", "issue-bound", "% of bound", "SIMT efficiency",
                           "SM balance", "the seed articles"}) {
    ImGui::BulletText("%s", term);
    explain_last_item(term);
  }
  ImGui::End();
}

}  // namespace mp
