#include "app/compare_window.h"

#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <tuple>
#include <vector>

#include "app/capture_path.h"
#include "app/glossary.h"
#include "commands/common.h"
#include "commands/measure.h"
#include "gpu_renderer.h"
#include "io/files.h"
#include "model/variant_table.h"
#include "model/view_limit.h"

namespace mp {

void CompareWindow::run(GpuRenderer& gpu, const View& view, int width, int height,
                        const LoadedSass* sass, CounterProbe* counters) {
  std::vector<VariantId> all;
  for (const VariantInfo& v : all_variants()) all.push_back(v.id);
  BenchReport rep;
  rep.device = summarize(gpu.device(), sass);
  rep.rows = measure_variants(gpu, "current", view, width, height, all, 5, 1, sass, counters);
  report_ = std::move(rep);
}

bool CompareWindow::current(const View& view, int width, int height) const {
  if (!report_ || report_->rows.empty()) return false;
  const MeasuredRow& r = report_->rows.front();
  return r.view == view && r.width == width && r.height == height;
}

void CompareWindow::draw(Explorer& ex, const Layout& layout, int width, int height,
                         const std::string& capture_dir) {
  if (!report_) return;
  layout.place_tool_window(70 * ImGui::GetFontSize(), false);
  bool open = true;
  ImGui::Begin("Compare all variants (C)", &open);
  const BenchReport& rep = *report_;
  if (!rep.rows.empty()) {
    const MeasuredRow& r0 = rep.rows.front();
    ImGui::TextWrapped(
        "%dx%d at centre %.12g, %.12g, span %.6g, %u iterations; median of %d frames", r0.width,
        r0.height, r0.view.center_x, r0.view.center_y, r0.view.span, r0.view.max_iter, r0.frames);
    ImGui::TextDisabled("tiles %s", r0.tiles_by_cost
                                        ? "costliest first, by the previous frame of this view"
                                        : "in rows (costly tiles first is off)");
    if (!current(ex.view, width, height))
      ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1),
                         "Of an earlier view or window size: C compares this one.");
  }
  ImGui::TextDisabled("mix: %s", rep.device.mix_source.c_str());
  ImGui::TextDisabled(
      "limit: the view's physical limit, 4 FMA-pipe issue slots a step at the peak clock, with "
      "warps as they diverge (every lane busy); %% of limit = limit / kernel ms");
  const char* heads[] = {"variant",      "kernel ms",       "SM Mcycles",       "Giter/s",
                         "bound max ms", "bound sum ms",    "% of bound",       "limiting",
                         "px != fma4",   "limit ms (free)", "% of limit (free)"};
  const int columns = static_cast<int>(std::size(heads));
  // The counters' issue and FMA figures beside the model's bound, where they were read.
  const bool counted = std::any_of(rep.rows.begin(), rep.rows.end(),
                                   [](const MeasuredRow& r) { return r.counters.has_value(); });
  if (ImGui::BeginTable(
          "cmp", counted ? columns + 2 : columns,
          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX)) {
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
  if (!open) report_.reset();
}

}  // namespace mp
