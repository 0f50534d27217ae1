#include "app/sweep_window.h"

#include <imgui.h>

#include <cstdio>
#include <utility>

#include "app/glossary.h"
#include "session/measure.h"
#include "variants.h"

namespace mp {

void SweepWindow::request(RunQueue& jobs, GpuLease& lease, const LoadedSass* sass) {
  shown_ = true;
  if (jobs.pending(kJob)) return;
  rows_.clear();
  error_.clear();
  cancelled_ = false;
  refit_ = true;
  // A sine count a step on the run queue's worker, in the order of the whole sweep: each with its
  // own warm-up; the rows are kept on the window's thread.
  jobs.push_steps_off_thread(
      kJob, variants::kMaxSweepSines + 1,
      // The sweep draws with the renderer the window's frame uses: the window renders again
      // once it has the renderer back (the lease's generation).
      [this, &lease, sass](int sines) -> RunQueue::Then {
        GpuRenderer& gpu = lease.for_job();
        gpu.bind_thread();
        return [this, row = sine_sweep_row(gpu, sass, sines, 5, 2)] {
          rows_.push_back(row);
          refit_ = true;
        };
      },
      [this](const std::string& why) {
        error_ = why;
        refit_ = true;
      });
}

void SweepWindow::draw(Explorer& ex, Layout& layout, int arch) {
  if (!shown_) return;
  layout.begin_tool_window("Sine balance (sin-ratio)", &shown_, layout.wish(54, 16),
                           std::exchange(refit_, false));
  ImGui::TextWrapped(
      "fma4 with 0 to 4 __sinf per step at bench view C, 1920x1080 (almost no divergence), "
      "median of 5 frames. Busy = the pipe's cycles by the model over the measured SM cycles; "
      "model = over the bound's cycles.");
  text_with_term("XU: the pipe __sinf runs on.", "XU");
  const int total = variants::kMaxSweepSines + 1;
  if (const auto progress = ex.jobs.progress(kJob)) {
    char text[64];
    std::snprintf(text, sizeof text, "%d of %d sine counts timed", progress->done, total);
    ImGui::ProgressBar(progress->fraction(), ImVec2(-8 * ImGui::GetFontSize(), 0), text);
    ImGui::SameLine();
    if (ImGui::Button("Cancel##sweep")) cancelled_ = ex.jobs.cancel(kJob);
    ImGui::TextDisabled(
        "Each sine count is timed on a worker thread: the window draws and takes input "
        "meanwhile, its own image paused until the sweep ends; one being timed finishes.");
  } else if (cancelled_ || (!error_.empty() && !rows_.empty())) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Incomplete (%s): %zu of %d sine counts timed.",
                       cancelled_ ? "cancelled" : "failed", rows_.size(), total);
  }
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
    if (static_cast<int>(rows_.size()) == total)
      ImGui::TextWrapped(
          "Balance point (the less busy of XU and issue at its busiest): measured %d sines per "
          "step, predicted %d. sin-ratio runs %d on sm_%d.",
          balance_point(rows_, true), balance_point(rows_, false), variants::sines_per_step(arch),
          arch);
  }
  ImGui::End();
}

}  // namespace mp
