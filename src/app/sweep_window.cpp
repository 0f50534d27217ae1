#include "app/sweep_window.h"

#include <imgui.h>

#include <utility>

#include "app/glossary.h"
#include "commands/measure.h"
#include "variants.h"

namespace mp {

void SweepWindow::request(RunQueue& jobs, GpuRenderer& gpu, const LoadedSass* sass, bool* dirty) {
  shown_ = true;
  jobs.push(
      kJob,
      [this, &gpu, sass, dirty] {
        rows_ = sine_sweep(gpu, sass, 5, 2);
        error_.clear();
        refit_ = true;
        *dirty = true;  // the sweep drew into the renderer's surface
      },
      [this](const std::string& why) {
        error_ = why;
        refit_ = true;
      });
}

void SweepWindow::draw(Explorer& ex, const Layout& layout, int sm) {
  if (!shown_) return;
  layout.place_tool_window(54 * ImGui::GetFontSize(), std::exchange(refit_, false));
  ImGui::Begin("Sine balance (sin-ratio)", &shown_);
  ImGui::TextWrapped(
      "fma4 with 0 to 4 __sinf per step at bench view C, 1920x1080 (almost no divergence), "
      "median of 5 frames. Busy = the pipe's cycles by the model over the measured SM cycles; "
      "model = over the bound's cycles.");
  text_with_term("XU: the pipe __sinf runs on.", "XU");
  if (ex.jobs.pending(kJob)) ImGui::TextUnformatted("sweeping...");
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", error_.c_str());
  if (!rows_.empty()) {
    const char* heads[] = {"sines/step",   "mix FMA/ALU/XU/other", "SM Mcycles",
                           "bound (pipe)", "% of bound",           "XU busy",
                           "XU model",     "issue busy",           "issue model"};
    if (ImGui::BeginTable("sweep", 9, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (int c = 0; c < 9; ++c)  // the mix and the bound hold the longest cells
        ImGui::TableSetupColumn(heads[c], ImGuiTableColumnFlags_WidthStretch,
                                c == 1 || c == 3 ? 2.2f : 1.0f);
      ImGui::TableHeadersRow();
      for (const SineSweepRow& r : rows_) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", r.sines);
        ImGui::TableNextColumn();
        ImGui::Text("%g/%g/%g/%g (%s)", r.per_step.fma, r.per_step.alu, r.per_step.xu,
                    r.per_step.other, r.mix_from_sass ? "SASS" : "declared");
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", r.measured_cycles / 1e6);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f M (%s)", r.bound.max_cycles / 1e6, pipe_name(r.bound.limiting));
        ImGui::TableNextColumn();
        ImGui::Text("%.1f%%", 100 * r.bound.max_cycles / r.measured_cycles);
        explain_last_item("% of bound");
        for (double v : {r.xu_busy, r.xu_predicted, r.issue_busy, r.issue_predicted}) {
          ImGui::TableNextColumn();
          ImGui::Text("%.1f%%", 100 * v);
        }
      }
      ImGui::EndTable();
    }
    ImGui::TextWrapped(
        "Balance point (the less busy of XU and issue at its busiest): measured %d sines per "
        "step, predicted %d. sin-ratio runs %d on sm_%d.",
        balance_point(rows_, true), balance_point(rows_, false), variants::sines_per_step(sm), sm);
  }
  ImGui::End();
}

}  // namespace mp
