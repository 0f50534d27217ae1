#include "app/experiments_window.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "app/glossary.h"
#include "io/experiment_report.h"
#include "io/format_number.h"
#include "lab/experiments.h"
#include "session/device.h"

namespace mp {
namespace {

// Rows of one unit on one scale from zero: a bar for each measurement, a white tick at its
// prediction, the scale's top written at the left; hovering a bar names its row.
void plot_against_model(const std::string& unit, const std::vector<const ExperimentRow*>& rows) {
  double top = 0;
  for (const ExperimentRow* row : rows)
    top = std::max({top, row->measured, row->predicted.value_or(0.0)});
  if (!(top > 0)) return;
  const float em = ImGui::GetFontSize();
  ImGui::Text("%s: bars measured, white ticks predicted (axis 0 to %.4g %s)", unit.c_str(), top,
              unit.c_str());
  const float width = ImGui::GetContentRegionAvail().x, height = 6.5f * em;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(("##plot " + unit).c_str(), ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float bottom = p0.y + height, pad = 0.4f * em;
  dl->AddRectFilled(p0, ImVec2(p0.x + width, bottom), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const auto y = [&](double v) { return bottom - static_cast<float>(v / top) * (height - pad); };
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
                  std::max(1.0f, 0.15f * em));
    const float mx = ImGui::GetIO().MousePos.x;
    if (hovered && mx >= left && mx < left + slot) {
      const auto ratio = row.ratio();
      ImGui::SetTooltip("%s\npredicted %s, measured %.4g %s%s", row.label.c_str(),
                        row.predicted ? fmt("%.4g", *row.predicted).c_str() : "-", row.measured,
                        unit.c_str(), ratio ? fmt(" (x%.3f)", *ratio).c_str() : "");
    }
  }
  // The scale: its top and zero at the left edge.
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddText(ImVec2(p0.x + 2, p0.y), dim, fmt("%.4g", top).c_str());
  dl->AddText(ImVec2(p0.x + 2, bottom - ImGui::GetTextLineHeight()), dim, "0");
}

void draw_report(const ExperimentReport& r, Explorer& ex) {
  ImGui::Separator();
  ImGui::TextWrapped("%s on %s", r.title.c_str(), r.device.c_str());
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
      plot_against_model(unit, rows);
  ImGui::TextWrapped("%s", r.conclusion.c_str());
  if (ImGui::Button("Copy as Markdown")) {
    ImGui::SetClipboardText(format_experiment(r, OutputFormat::Markdown).c_str());
    ex.status = "experiment copied as Markdown";
  }
}

}  // namespace

void ExperimentsWindow::select(std::string_view name) {
  const auto& names = experiment_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) index_ = static_cast<int>(it - names.begin());
}

void ExperimentsWindow::request(RunQueue& jobs, const DeviceInfo& device, CounterProbe* counters,
                                bool all) {
  if (jobs.pending(kJob)) return;
  const int count = static_cast<int>(experiment_names().size());
  results_.resize(count);
  queued_.clear();
  for (int i = 0; i < count; ++i)
    if (all || i == index_) queued_.push_back(i);
  finished_ = 0;
  cancelled_ = false;
  stopped_.clear();
  // An experiment a step, each on the worker as a whole (its kernels and timing are its own). The
  // worker touches nothing of the window's: its result is stored by the step's `then`, here.
  jobs.push_steps_off_thread(
      kJob, static_cast<int>(queued_.size()),
      [this, queued = queued_, &device, counters](int step) -> RunQueue::Then {
        const int i = queued[step];
        return [this, i, report = run_experiment(experiment_names()[i], device, counters)] {
          index_ = i;  // the window shows the one that just ran
          results_[i] = {report, ""};
          ++finished_;
          if (cancelled_)
            stopped_ = "cancelled after " + std::to_string(finished_) + " of " +
                       std::to_string(queued_.size());
          refit_ = true;
        };
      },
      [this](const std::string& why) {
        index_ = queued_[finished_];
        results_[index_] = {std::nullopt, why};
        if (queued_.size() > 1) stopped_ = "stopped by " + std::string(experiment_names()[index_]);
        refit_ = true;
      });
}

std::optional<ExperimentsWindow::Running> ExperimentsWindow::running(const RunQueue& jobs) const {
  const auto on_worker = jobs.off_thread();
  if (!on_worker || on_worker->job != kJob || on_worker->step >= static_cast<int>(queued_.size()))
    return std::nullopt;
  return Running{std::string(experiment_names()[queued_[on_worker->step]]), on_worker->elapsed_s};
}

void ExperimentsWindow::draw_progress(Explorer& ex) {
  if (ex.jobs.pending(kJob)) {
    const int total = static_cast<int>(queued_.size());
    char text[96];
    std::snprintf(text, sizeof text, "%d of %d experiments run", finished_, total);
    ImGui::ProgressBar(static_cast<float>(finished_) / static_cast<float>(total),
                       ImVec2(-8 * ImGui::GetFontSize(), 0), text);
    ImGui::SameLine();
    const auto now = running(ex.jobs);
    // Only those not begun can be dropped: the one on the worker cannot be cut mid-way.
    const bool droppable = !cancelled_ && total - finished_ > (now ? 1 : 0);
    ImGui::BeginDisabled(!droppable);
    if (ImGui::Button("Cancel##experiments") && droppable) {
      if (now)
        cancelled_ = true;  // its result still comes, then the run ends
      else
        stopped_ = "cancelled after " + std::to_string(finished_) + " of " + std::to_string(total);
      ex.jobs.cancel(kJob);
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", droppable ? "drops the experiments not begun; the running one "
                                          "finishes (one cannot be cut mid-way)"
                                        : "nothing left to drop: the running experiment cannot "
                                          "be cut mid-way, it finishes");
    ImGui::PushTextWrapPos(0.0f);
    if (now)
      ImGui::TextColored(ImVec4(0.55f, 0.85f, 1, 1),
                         "Running %s: %.1f s. It measures the GPU alone, so the window's image "
                         "and counters pause until it ends; input is kept and rendered then.",
                         now->name.c_str(), now->elapsed_s);
    if (cancelled_ && now)
      ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1),
                         "Cancelled: %s finishes (an experiment cannot be cut mid-way); the "
                         "rest will not run.",
                         now->name.c_str());
    ImGui::TextDisabled(
        "Each experiment runs on a worker thread, one after another: the window keeps drawing "
        "and taking input meanwhile.");
    ImGui::PopTextWrapPos();
  } else if (!stopped_.empty()) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1), "Run all incomplete: %s.", stopped_.c_str());
  }
}

void ExperimentsWindow::draw_prediction() {
  if (!prediction_ || prediction_->name != experiment_names()[index_])
    prediction_ = predict_experiment(experiment_names()[index_], device_without_gpu());
  const ExperimentReport& p = *prediction_;
  ImGui::PushTextWrapPos(0.0f);
  if (p.rows.empty()) {
    ImGui::TextWrapped("No prediction without a measurement: %s.", p.conclusion.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  ImGui::TextWrapped("What the model predicts for %s, with nothing measured:", p.device.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::BeginTable("prediction", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch, 3);
    ImGui::TableSetupColumn("predicted", ImGuiTableColumnFlags_WidthStretch, 1);
    ImGui::TableSetupColumn("unit", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableHeadersRow();
    for (const ExperimentRow& row : p.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.label.c_str());
      if (!row.note.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.note.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", row.predicted.value_or(0.0));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.unit.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Model: %s", p.model.c_str());
  ImGui::PopTextWrapPos();
}

void ExperimentsWindow::draw(bool* open, Explorer& ex, Layout& layout, const DeviceInfo* device,
                             CounterProbe* counters) {
  layout.begin_tool_window("Experiments (E)", open, layout.wish(54, 30),
                           std::exchange(refit_, false));
  const auto& catalogue = experiment_catalogue();
  if (ImGui::BeginCombo("experiment", std::string(catalogue[index_].name).c_str())) {
    for (std::size_t i = 0; i < catalogue.size(); ++i)
      if (ImGui::Selectable(std::string(catalogue[i].name).c_str(), static_cast<int>(i) == index_))
        index_ = static_cast<int>(i);
    ImGui::EndCombo();
  }
  text_with_term(
      "Questions from the seed articles (the first seven) and from this program's own model "
      "(perturbation-cost, kernel-overhead), each measured against the model.",
      "the seed articles");
  ImGui::TextWrapped("%s", std::string(catalogue[index_].question).c_str());
  const char* busy = ex.measuring();
  for (const bool all : {false, true}) {
    if (all) ImGui::SameLine();
    ImGui::BeginDisabled(!device || busy);
    if (ImGui::Button(all ? "Run all" : "Run") && device && !busy)
      request(ex.jobs, *device, counters, all);
    ImGui::EndDisabled();
    if (busy && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s running", busy);
  }
  if (!device) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Experiments run on the GPU: the CUDA path is not in use.");
    ImGui::PopTextWrapPos();
    draw_prediction();
  }
  draw_progress(ex);
  if (static_cast<std::size_t>(index_) < results_.size()) {
    const Result& r = results_[index_];
    if (!r.error.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.3f, 1), "%s", r.error.c_str());
    if (device && r.report) draw_report(*r.report, ex);
  }
  ImGui::End();
}

}  // namespace mp
