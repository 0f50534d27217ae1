#include "app/compare_window.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

#include "app/capture_path.h"
#include "app/glossary.h"
#include "gpu_renderer.h"
#include "io/files.h"
#include "model/variant_table.h"
#include "model/view_limit.h"
#include "session/frame_report.h"

namespace mp {

void CompareWindow::request(Explorer& ex, GpuLease& lease, const View& view, int width, int height,
                            const LoadedSass* sass, CounterProbe* counters, Finished finished) {
  if (ex.jobs.pending(kJob)) return;
  const auto& all = all_variants();
  report_.emplace();
  report_->device = summarize(lease.peek()->device(), sass);
  view_ = view;
  width_ = width;
  height_ = height;
  variants_ = static_cast<int>(all.size());
  stopped_.clear();
  finished_ = std::move(finished);
  cancelled_ = false;
  refit_ = true;
  // Every step draws into the renderer's own memory of the view: the window's frame starts
  // again after it (the lease's generation moves as the job gives the renderer back). Step 0
  // renders fma4's reference counts, step k times variant k - 1, on the worker; what they give is
  // kept on the window's thread (the returned functions).
  ex.jobs.push_steps_off_thread(
      kJob, variants_ + 1,
      [this, &lease, view, width, height, sass, counters](int step) -> RunQueue::Then {
        GpuRenderer& gpu = lease.for_job();
        gpu.bind_thread();
        if (step == 0) {
          auto m = std::make_shared<VariantMeasurer>(gpu, "current", view, width, height, 5, 1,
                                                     sass, counters);
          return [this, m] {
            measurer_ = m;
            if (cancelled_) finish("cancelled");
          };
        }
        return [this, last = step == variants_,
                row = measurer_->measure(all_variants()[step - 1].id)] {
          refit_ = true;
          if (report_) report_->rows.push_back(row);
          if (cancelled_)
            finish("cancelled");
          else if (last)
            finish("");
        };
      },
      [this, &ex](const std::string& why) {
        ex.status = "compare failed: " + why;
        finish("failed: " + why);
      });
}

void CompareWindow::cancel(Explorer& ex) {
  if (!ex.jobs.cancel(kJob)) return;
  const auto worker = ex.jobs.off_thread();
  if (worker && worker->job == kJob)
    cancelled_ = true;
  else
    finish("cancelled");
}

void CompareWindow::finish(const std::string& stopped) {
  measurer_.reset();  // its buffers are of the window's size
  cancelled_ = false;
  stopped_ = stopped;
  if (Finished f = std::exchange(finished_, nullptr)) f(stopped);
}

bool CompareWindow::current(const View& view, int width, int height) const {
  return report_ && !measurer_ && stopped_.empty() &&
         static_cast<int>(report_->rows.size()) == variants_ && view_ == view && width_ == width &&
         height_ == height;
}

void CompareWindow::draw_progress(Explorer& ex) {
  const auto progress = ex.jobs.progress(kJob);
  if (progress) {
    char text[64];
    std::snprintf(text, sizeof text, "%zu of %d variants timed", report_->rows.size(), variants_);
    ImGui::ProgressBar(progress->fraction(), ImVec2(-8 * ImGui::GetFontSize(), 0), text);
    ImGui::SameLine();
    if (ImGui::Button("Cancel##compare")) cancel(ex);
    ImGui::TextDisabled(
        "Each variant is timed on a worker thread: the window draws and takes input meanwhile, "
        "its own image paused until the compare ends; a variant being timed finishes.");
  } else if (!stopped_.empty()) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Incomplete (%s): %zu of %d variants timed.",
                       stopped_.c_str(), report_->rows.size(), variants_);
  }
}

void CompareWindow::draw(Explorer& ex, Layout& layout, const View& shown, int width, int height,
                         const std::string& capture_dir) {
  if (!report_) return;
  bool open = true;
  layout.begin_tool_window("Compare all variants (C)", &open, layout.wish(70, 18),
                           std::exchange(refit_, false));
  const BenchReport& rep = *report_;
  ImGui::TextWrapped("%dx%d at centre %s, %s, span %s, %u iterations", width_, height_,
                     view_.center_x.str(12).c_str(), view_.center_y.str(12).c_str(),
                     span_text(view_.span).c_str(), view_.max_iter);
  draw_progress(ex);
  if (!rep.rows.empty()) {
    const MeasuredRow& r0 = rep.rows.front();
    ImGui::TextDisabled("median of %d frames; tiles %s", r0.frames,
                        r0.tiles_by_cost ? "costliest first, by the previous frame of this view"
                                         : "in rows (costly tiles first is off)");
  }
  if (!(view_ == shown && width_ == width && height_ == height))
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1),
                       "Of an earlier view or window size: C compares this one.");
  ImGui::TextDisabled("mix: %s", rep.device.mix_source.c_str());
  ImGui::TextDisabled(
      "limit: the view's physical limit, 4 FMA-pipe issue slots a step at the peak clock, with "
      "warps as they diverge (every lane busy); %% of limit = limit / kernel ms; fma4-cycles "
      "skips the steps of orbits it finds periodic, which the limit counts, and can pass 100%%");
  const char* heads[] = {"variant",         "kernel ms",    "SM Mcycles",      "Giter/s run",
                         "Giter/s counted", "bound max ms", "bound sum ms",    "% of bound",
                         "limiting",        "px != fma4",   "limit ms (free)", "% of limit (free)"};
  const int columns = static_cast<int>(std::size(heads));
  // The counters' issue and FMA figures beside the model's bound, where they were read.
  const bool counted = std::any_of(rep.rows.begin(), rep.rows.end(),
                                   [](const MeasuredRow& r) { return r.counters.has_value(); });
  // As tall as its rows: a table that scrolls sideways is a child window, which would otherwise
  // take all the height the window has and push the buttons below out of it.
  const float table_height = ImGui::GetTextLineHeightWithSpacing() * (rep.rows.size() + 1.5f) +
                             ImGui::GetStyle().ScrollbarSize;
  if (ImGui::BeginTable("cmp", counted ? columns + 2 : columns,
                        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX,
                        ImVec2(0.0f, table_height))) {
    for (const char* h : heads) ImGui::TableSetupColumn(h);
    if (counted) {
      ImGui::TableSetupColumn("issue % (ctr)");
      ImGui::TableSetupColumn("FMA % (ctr)");
    }
    ImGui::TableHeadersRow();
    for (const MeasuredRow& r : rep.rows) {
      const Metrics& m = r.metrics;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.variant.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", r.measured.kernel_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", r.measured.sm_cycles / 1e6);
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", m.giter_per_s);
      ImGui::TableNextColumn();
      if (r.counted_iters > 0)
        ImGui::Text("%.1f", counted_giter_per_s(r));
      else
        ImGui::TextDisabled("n/a");
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", m.bound_max_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.3f", m.bound_sum_ms);
      ImGui::TableNextColumn();
      ImGui::Text("%.1f%%", 100 * m.fraction_of_bound);
      explain_last_item("% of bound");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(pipe_name(m.bound.limiting));
      explain_last_item("pipe");
      ImGui::TableNextColumn();
      ImGui::Text("%lld", r.differing_from_fma4);
      // The view's physical limit, divergence-aware (and free), and the kernel's share of it.
      ImGui::TableNextColumn();
      if (r.limit)
        ImGui::Text("%.3f (%.3f)", r.limit->aware_ms, r.limit->free_ms);
      else
        ImGui::TextDisabled("n/a");
      ImGui::TableNextColumn();
      if (r.limit)
        ImGui::Text("%.1f%% (%.1f%%)",
                    100 * fraction_of_limit(r.limit->aware_ms, r.measured.kernel_ms),
                    100 * fraction_of_limit(r.limit->free_ms, r.measured.kernel_ms));
      else
        ImGui::TextDisabled("n/a");
      if (!counted) continue;
      for (const char* pipe : {"issue", "FMA"}) {
        ImGui::TableNextColumn();
        const CounterPipe* p =
            r.counters && r.counters->unavailable.empty() ? r.counters->find(pipe) : nullptr;
        if (p)
          ImGui::Text("%.1f", p->pct);
        else
          ImGui::TextDisabled("n/a");
      }
    }
    ImGui::EndTable();
  }
  if (ImGui::Button("Copy as Markdown")) {
    ImGui::SetClipboardText(format_bench(rep, OutputFormat::Markdown).c_str());
    ex.status = "table copied as Markdown";
  }
  for (auto [label, format, ext] : {std::tuple{"Save CSV", OutputFormat::Csv, ".csv"},
                                    std::tuple{"Save JSON", OutputFormat::Json, ".json"}}) {
    ImGui::SameLine();
    if (ImGui::Button(label)) {
      const auto path = capture_path(capture_dir, "mandelpipe-compare", ext);
      const BenchReport copy = rep;  // the job may run after the table was replaced
      ex.jobs.push(
          std::string("save ") + ext,
          [&ex, path, copy, format = format] {
            write_file_atomic(path, format_bench(copy, format));
            ex.status = "saved " + path.string();
          },
          [&ex](const std::string& why) { ex.status = "save failed: " + why; });
    }
  }
  if (!ex.status.empty()) ImGui::TextDisabled("%s", ex.status.c_str());
  ImGui::End();
  if (open) return;
  cancel(ex);
  report_.reset();
}

}  // namespace mp
