// The side panel: what renders, how fast, and how close to the bound the pipes allow.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "app/app.h"
#include "experiments.h"
#include "io/files.h"
#include "io/format_number.h"
#include "model/variant_table.h"
#include "variants.h"

namespace mp {
namespace {

void mix_row(const char* label, const InstrMix& m) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  for (double v : {m.fma, m.alu, m.xu, m.fp64, m.other, m.total()}) {
    ImGui::TableNextColumn();
    ImGui::Text("%g", v);
  }
}

}  // namespace

// What the GPU's own counters read, against the model: the source (or why none), the clock
// they saw, and the instructions they counted beside those the model's step loop accounts for.
void App::draw_counters_section(const GpuFrameStats& s) {
  ImGui::Text("Hardware counters (CUPTI PM sampling):");
  const std::string source = counters_source(false);
  const bool ok = counter_figures_ && counter_figures_->unavailable.empty();
  ImGui::PushTextWrapPos(0.0f);
  if (counters_ && !counters_->unavailable().empty())
    ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "%s", source.c_str());
  else
    ImGui::TextDisabled("%s", source.c_str());
  // A frame the sampler had no figures for, while the sampler itself runs.
  if (counter_figures_ && !counter_figures_->unavailable.empty() && counters_ &&
      counters_->unavailable().empty())
    ImGui::TextDisabled("last frame: %s", counter_figures_->unavailable.c_str());
  ImGui::PopTextWrapPos();
  if (!ok) return;
  const CounterFigures& c = *counter_figures_;
  ImGui::BulletText("clock %.3f GHz over %d sample%s of a %.3f ms span", c.clock_ghz, c.samples,
                    c.samples == 1 ? "" : "s", c.span_ms);
  // The model counts the step loop only; the rest of the kernel (per pixel, per tile, the
  // queue) is what the counters see beyond it.
  const InstrMix per_step = per_step_mix(variant_, sm(), sass(), s.recording);
  const double modelled = per_step.total() * static_cast<double>(s.warp_iters);
  if (c.warp_instructions > 0) {
    ImGui::BulletText("instructions: %.4g counted, %.4g in the modelled step loop",
                      c.warp_instructions, modelled);
    ImGui::BulletText("outside the step loop: %.4g (%.1f%% of counted)",
                      c.warp_instructions - modelled,
                      100 * (c.warp_instructions - modelled) / c.warp_instructions);
  }
}

void App::draw_panel() {
  const float scale = window_.content_scale();
  ImGui::SetNextWindowPos(ImVec2(10 * scale, 10 * scale), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(430 * scale, 0), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("mandelpipe  (Tab hides)");

  // Where the frame comes from.
  if (device_.device) {
    const DeviceInfo& d = *device_.device;
    ImGui::Text("%s  sm_%d%d  %d SMs", d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count);
  } else {
    ImGui::TextUnformatted("No CUDA device in use");
  }
  ImGui::Text("Renderer: %s", pipeline_.renderer_description().c_str());
  ImGui::Text("Present:  %s", pipeline_.present_description().c_str());
  if (!pipeline_.fallback_reason().empty())
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Fallback: %s",
                       pipeline_.fallback_reason().c_str());

  // Variant.
  ImGui::Separator();
  const auto& variants = all_variants();
  for (std::size_t i = 0; i < variants.size(); ++i) {
    char label[64];
    std::snprintf(label, sizeof label, "%zu: %s", i + 1, variants[i].name.data());
    if (ImGui::RadioButton(label, variant_ == variants[i].id) && variant_ != variants[i].id) {
      variant_ = variants[i].id;
      render_ms_.clear();
      dirty_ = true;
    }
    if (i + 1 < variants.size() && (i + 1) % 4 != 0) ImGui::SameLine();
  }
  const VariantInfo& vi = variant_info(variant_);
  ImGui::TextWrapped("%s", vi.summary.data());
  if (variant_ == VariantId::SinRatio) {
    ImGui::Text("%d __sinf per step on sm_%d", variants::sines_per_step(sm()), sm());
    if (pipeline_.gpu()) {
      ImGui::SameLine();
      if (ImGui::SmallButton(sweep_requested_ ? "sweeping..." : "measure the balance")) {
        sweep_requested_ = true;
        show_sweep_ = true;
      }
    }
  }

  // View.
  ImGui::Separator();
  ImGui::Text("Centre %.15g, %.15g", view_.center_x, view_.center_y);
  ImGui::Text("Span   %.6g", view_.span);
  int iters = static_cast<int>(view_.max_iter);
  if (ImGui::InputInt("max iterations", &iters, 256, 4096)) {
    view_.max_iter = static_cast<unsigned>(std::clamp(iters, 1, static_cast<int>(kMaxIterations)));
    render_ms_.clear();
    dirty_ = true;
  }
  if (ImGui::BeginCombo("bookmark", "go to...")) {
    for (const Bookmark& b : bookmarks_)
      if (ImGui::Selectable(b.name.c_str())) {
        view_ = b.view;
        render_ms_.clear();
        dirty_ = true;
      }
    ImGui::EndCombo();
  }

  // Measurements.
  ImGui::Separator();
  ImGui::Text("Frame %.2f ms (%.0f fps)   %s %.3f ms", frame_ms_.mean(),
              1000.0 / std::max(frame_ms_.mean(), 1e-3f), last_.gpu ? "kernel" : "CPU render",
              render_ms_.mean());
  ImGui::PlotLines("##render", render_ms_.data(), static_cast<int>(render_ms_.size()),
                   render_ms_.offset(), last_.gpu ? "kernel ms (events)" : "CPU ms", 0.0f, FLT_MAX,
                   ImVec2(0, 50 * scale));
  const double iters_done = static_cast<double>(last_.pixel_iters());
  if (last_.gpu && last_metrics_) {
    const GpuFrameStats& s = last_.gpu_stats;
    const Metrics& m = *last_metrics_;
    ImGui::Text("Measured (last frame):");
    ImGui::BulletText("SM cycles %.3f M (max over %d SMs, clock64)", s.sm_cycles / 1e6, s.sms_used);
    ImGui::BulletText("SM balance %.1f%% (mean SM span / max)", 100 * m.sm_balance);
    ImGui::BulletText("tiles %s", s.by_cost ? "costliest first, by the last frame" : "in rows");
    ImGui::BulletText("SM clock %.3f GHz (cycles / event time)", m.clock_ghz);
    ImGui::BulletText("%.2f Giter/s; %.3g pixel-iterations", m.giter_per_s, iters_done);
    ImGui::BulletText("warp-issued iterations %.3g; SIMT efficiency %.1f%% (D: per warp)",
                      static_cast<double>(s.warp_iters), 100 * m.simt_efficiency);
    ImGui::Text("Model (%s):", rates_->describe().c_str());
    ImGui::BulletText("bound, pipes overlapping: %.3f ms (%.3f M cycles, %s-bound)", m.bound_max_ms,
                      m.bound.max_cycles / 1e6, pipe_name(m.bound.limiting));
    ImGui::BulletText("bound, no overlap: %.3f ms (%.3f M cycles)", m.bound_sum_ms,
                      m.bound.sum_cycles / 1e6);
    ImGui::TextColored(ImVec4(0.5f, 1, 0.5f, 1), "%.1f%% of bound (bound / measured cycles)",
                       100 * m.fraction_of_bound);
    draw_counters_section(s);
  } else {
    ImGui::Text("%.3g pixel-iterations, %.3f Giter/s on %u threads", iters_done,
                last_.cpu_stats.ms > 0 ? iters_done / (last_.cpu_stats.ms * 1e6) : 0.0,
                last_.cpu_stats.threads);
    ImGui::TextDisabled("SM cycles and the pipe bound need the CUDA path.");
  }

  // Instruction mix: declared beside the variant, and read from this executable's SASS.
  if (device_.device)
    ImGui::Text("Instructions per step on sm_%d (bound uses: %s)", sm(),
                sass() ? "SASS" : "declared");
  else
    ImGui::TextUnformatted("Instructions per step of the sm_90 build (no GPU in use)");
  if (ImGui::BeginTable("mix", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {"per iteration", "FMA", "ALU", "XU", "FP64", "other", "total"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    mix_row("step (declared)", vi.step(sm()));
    mix_row("escape + loop", vi.overhead(sm()));
    mix_row("total (declared)", vi.per_iteration(sm()));
    if (const LoopListing* l =
            sass() ? sass()->loop(variant_, last_.gpu && last_.gpu_stats.recording) : nullptr)
      mix_row("total (SASS)", l->mix * (1.0 / vi.steps_per_check));
    ImGui::EndTable();
  }

  // Views and tools.
  ImGui::Separator();
  if (ImGui::Checkbox("pipes (P)", &show_overlay_)) overlay_.clear();
  ImGui::SameLine();
  ImGui::Checkbox("SASS (S)", &show_sass_);
  ImGui::SameLine();
  if (ImGui::Checkbox("divergence (D)", &show_divergence_)) dirty_ = true;
  if (show_divergence_) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "A warp with no idle lane is grey; the more of its lanes idled, the further along blue, "
        "yellow, red.");
    ImGui::PopTextWrapPos();
  }
  if (GpuRenderer* gpu = pipeline_.gpu()) {
    bool by_cost = gpu->tile_order() == TileOrder::CostliestFirst;
    if (ImGui::Checkbox("costly tiles first", &by_cost)) {
      gpu->set_tile_order(by_cost ? TileOrder::CostliestFirst : TileOrder::Rows);
      render_ms_.clear();
      dirty_ = true;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "A re-render of the same view takes its tiles costliest first, by the last frame's "
          "costs;\nthe first frame of a view goes in rows.");
    if (ImGui::Button(compare_requested_ ? "comparing..." : "Compare all variants (C)"))
      compare_requested_ = true;
    ImGui::SameLine();
  }
  if (ImGui::Button("Capture (F12)")) capture_requested_ = true;
  ImGui::SameLine();
  ImGui::Checkbox("experiments (E)", &show_experiments_);
  if (!status_.empty()) ImGui::TextDisabled("%s", status_.c_str());

  // Display.
  ImGui::Separator();
  if (ImGui::Checkbox("vsync (V)", &vsync_)) window_.set_vsync(vsync_);
  ImGui::SameLine();
  ImGui::Checkbox("live: re-render every frame", &live_);
  if (ImGui::BeginCombo("palette", palettes_[palette_index_].name.c_str())) {
    for (std::size_t i = 0; i < palettes_.size(); ++i)
      if (ImGui::Selectable(palettes_[i].name.c_str(), static_cast<int>(i) == palette_index_)) {
        palette_index_ = static_cast<int>(i);
        colorizer_.set_palette(palettes_[i]);
      }
    ImGui::EndCombo();
  }
  ImGui::SliderFloat("density", &settings_.colour.density, 0.05f, 8.0f, "%.2f",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SliderFloat("offset", &settings_.colour.offset, 0.0f, 1.0f);
  ImGui::SliderFloat("stripes", &settings_.colour.stripe, 0.0f, 1.0f);
  ImGui::TextDisabled(
      "drag: pan  wheel: zoom  arrows/+/-  Home: reset  1-%zu: variant  PgUp/PgDn: "
      "iterations  Esc: quit",
      variants.size());
  ImGui::End();
}

}  // namespace mp

namespace mp {

void App::draw_compare_window() {
  const float scale = window_.content_scale();
  ImGui::SetNextWindowSize(ImVec2(900 * scale, 0), ImGuiCond_FirstUseEver);
  bool open = true;
  ImGui::Begin("Compare all variants (C)", &open);
  const BenchReport& rep = *compare_;
  if (!rep.rows.empty()) {
    const MeasuredRow& r0 = rep.rows.front();
    ImGui::Text("%dx%d at centre %.12g, %.12g, span %.6g, %u iterations; median of %d frames",
                r0.width, r0.height, r0.view.center_x, r0.view.center_y, r0.view.span,
                r0.view.max_iter, r0.frames);
    ImGui::TextDisabled("tiles %s", r0.tiles_by_cost
                                        ? "costliest first, by the previous frame of this view"
                                        : "in rows (costly tiles first is off)");
    if (!compare_is_current())
      ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1),
                         "Of an earlier view or window size: C compares this one.");
  }
  ImGui::TextDisabled("mix: %s", rep.device.mix_source.c_str());
  const char* heads[] = {"variant",      "kernel ms",  "SM Mcycles", "Giter/s",   "bound max ms",
                         "bound sum ms", "% of bound", "limiting",   "px != fma4"};
  // The counters' issue and FMA figures beside the model's bound, where they were read.
  const bool counted = std::any_of(rep.rows.begin(), rep.rows.end(),
                                   [](const MeasuredRow& r) { return r.counters.has_value(); });
  if (ImGui::BeginTable("cmp", counted ? 11 : 9, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
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
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(pipe_name(m.bound.limiting));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", r.differing_from_fma4);
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
    status_ = "table copied as Markdown";
  }
  ImGui::SameLine();
  for (auto [label, format, ext] : {std::tuple{"Save CSV", OutputFormat::Csv, ".csv"},
                                    std::tuple{"Save JSON", OutputFormat::Json, ".json"}}) {
    if (ImGui::Button(label)) {
      const auto path = capture_path("mandelpipe-compare", ext);
      try {
        write_file_atomic(path, format_bench(rep, format));
        status_ = "saved " + path.string();
      } catch (const std::exception& e) {
        status_ = std::string("save failed: ") + e.what();
      }
    }
    ImGui::SameLine();
  }
  ImGui::NewLine();
  if (!status_.empty()) ImGui::TextDisabled("%s", status_.c_str());
  ImGui::End();
  if (!open) compare_.reset();
}

}  // namespace mp

namespace mp {

namespace {

// Centred, a quarter down, so that it starts clear of the panel (left) and of the pipe overlay
// (top right); no taller than three quarters of the window, so that a long table scrolls
// instead of running off the bottom.
// `refit`: new content (a table that came after the window opened) gets its height fitted anew.
void place_tool_window(float scale, bool refit) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(
      ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.25f),
      ImGuiCond_FirstUseEver, ImVec2(0.5f, 0.0f));
  ImGui::SetNextWindowSize(ImVec2(760 * scale, 0),
                           refit ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, vp->WorkSize.y * 0.75f));
}

// Rows of one unit on one scale from zero: a bar for each measurement, a white tick at its
// prediction; hovering a bar names its row.
void plot_against_model(const std::string& unit, const std::vector<const ExperimentRow*>& rows,
                        float scale) {
  double top = 0;
  for (const ExperimentRow* row : rows)
    top = std::max({top, row->measured, row->predicted.value_or(0.0)});
  if (!(top > 0)) return;
  ImGui::Text("%s: bars measured, white ticks predicted", unit.c_str());
  const float width = ImGui::GetContentRegionAvail().x, height = 90 * scale;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(("##plot " + unit).c_str(), ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bottom = p0.y + height;
  dl->AddRectFilled(p0, ImVec2(p0.x + width, bottom), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const auto y = [&](double v) {
    return bottom - static_cast<float>(v / top) * (height - 6 * scale);
  };
  const float slot = width / static_cast<float>(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ExperimentRow& row = *rows[i];
    const float left = p0.x + slot * static_cast<float>(i);
    const float x0 = left + slot * 0.2f, x1 = left + slot * 0.8f;
    dl->AddRectFilled(ImVec2(x0, y(row.measured)), ImVec2(x1, bottom),
                      ImGui::GetColorU32(ImGuiCol_PlotHistogram));
    if (row.predicted)
      dl->AddLine(ImVec2(left + slot * 0.1f, y(*row.predicted)),
                  ImVec2(left + slot * 0.9f, y(*row.predicted)), IM_COL32(255, 255, 255, 255),
                  2 * scale);
    const float mx = ImGui::GetIO().MousePos.x;
    if (hovered && mx >= left && mx < left + slot) {
      const auto ratio = row.ratio();
      ImGui::SetTooltip("%s\npredicted %s, measured %.4g %s%s", row.label.c_str(),
                        row.predicted ? fmt("%.4g", *row.predicted).c_str() : "-", row.measured,
                        unit.c_str(), ratio ? fmt(" (x%.3f)", *ratio).c_str() : "");
    }
  }
}

}  // namespace

// The seeds' experiments, one at a time: the question, the model, the table, a plot.
void App::draw_experiments_window() {
  const float scale = window_.content_scale();
  place_tool_window(scale, std::exchange(refit_experiments_, false));
  ImGui::Begin("Experiments (E)", &show_experiments_);
  const auto& catalogue = experiment_catalogue();
  if (ImGui::BeginCombo("experiment", std::string(catalogue[experiment_index_].name).c_str())) {
    for (std::size_t i = 0; i < catalogue.size(); ++i)
      if (ImGui::Selectable(std::string(catalogue[i].name).c_str(),
                            static_cast<int>(i) == experiment_index_))
        experiment_index_ = static_cast<int>(i);
    ImGui::EndCombo();
  }
  ImGui::TextWrapped("%s", std::string(catalogue[experiment_index_].question).c_str());
  if (!pipeline_.gpu()) {
    ImGui::TextDisabled("Experiments run on the GPU: the CUDA path is not in use.");
    ImGui::End();
    return;
  }
  if (ImGui::Button(experiment_requested_ ? "running..." : "Run")) experiment_requested_ = true;
  if (!experiment_error_.empty())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", experiment_error_.c_str());
  if (experiment_) {
    const ExperimentReport& r = *experiment_;
    ImGui::Separator();
    ImGui::Text("%s on %s", r.title.c_str(), r.device.c_str());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("model: %s", r.model.c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::BeginTable("exp", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      ImGui::TableSetupColumn("what (hover: note)", ImGuiTableColumnFlags_WidthStretch, 3.0f);
      for (const char* h : {"predicted", "measured", "unit", "measured/predicted"})
        ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableHeadersRow();
      for (const ExperimentRow& row : r.rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.label.c_str());
        if (!row.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.note.c_str());
        ImGui::TableNextColumn();
        if (row.predicted)
          ImGui::Text("%.4g", *row.predicted);
        else
          ImGui::TextDisabled("-");
        ImGui::TableNextColumn();
        ImGui::Text("%.4g", row.measured);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(row.unit.c_str());
        ImGui::TableNextColumn();
        if (const auto ratio = row.ratio())
          ImGui::Text("%.3f", *ratio);
        else
          ImGui::TextDisabled("-");
      }
      ImGui::EndTable();
    }
    // One plot per unit that the model predicts, in the table's order.
    std::vector<std::pair<std::string, std::vector<const ExperimentRow*>>> by_unit;
    for (const ExperimentRow& row : r.rows) {
      auto it = std::find_if(by_unit.begin(), by_unit.end(),
                             [&](const auto& g) { return g.first == row.unit; });
      if (it == by_unit.end()) it = by_unit.insert(by_unit.end(), {row.unit, {}});
      it->second.push_back(&row);
    }
    for (const auto& [unit, rows] : by_unit)
      if (std::any_of(rows.begin(), rows.end(), [](const auto* x) { return x->predicted; }))
        plot_against_model(unit, rows, scale);
    ImGui::TextWrapped("%s", r.conclusion.c_str());
    if (ImGui::Button("Copy as Markdown")) {
      ImGui::SetClipboardText(format_experiment(r, OutputFormat::Markdown).c_str());
      status_ = "experiment copied as Markdown";
    }
  }
  ImGui::End();
}

}  // namespace mp

namespace mp {

// sin-ratio's balance point found by measurement: fma4 with 0..4 __sinf per step, each beside
// the model's prediction from its loop's mix.
void App::draw_sweep_window() {
  const float scale = window_.content_scale();
  place_tool_window(scale, std::exchange(refit_sweep_, false));
  ImGui::Begin("Sine balance (sin-ratio)", &show_sweep_);
  ImGui::TextWrapped(
      "fma4 with 0 to 4 __sinf per step at bench view C, 1920x1080 (almost no divergence), "
      "median of 5 frames. Busy = the pipe's cycles by the model over the measured SM cycles; "
      "model = over the bound's cycles.");
  if (sweep_requested_) ImGui::TextUnformatted("sweeping...");
  if (!sweep_error_.empty())
    ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", sweep_error_.c_str());
  if (!sweep_.empty()) {
    const char* heads[] = {"sines/step",   "mix FMA/ALU/XU/other", "SM Mcycles",
                           "bound (pipe)", "% of bound",           "XU busy",
                           "XU model",     "issue busy",           "issue model"};
    if (ImGui::BeginTable("sweep", 9, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (int c = 0; c < 9; ++c)  // the mix and the bound hold the longest cells
        ImGui::TableSetupColumn(heads[c], ImGuiTableColumnFlags_WidthStretch,
                                c == 1 || c == 3 ? 2.2f : 1.0f);
      ImGui::TableHeadersRow();
      for (const SineSweepRow& r : sweep_) {
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
        balance_point(sweep_, true), balance_point(sweep_, false), variants::sines_per_step(sm()),
        sm());
  }
  ImGui::End();
}

}  // namespace mp
