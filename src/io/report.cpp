#include "io/report.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "io/counter_columns.h"
#include "io/format_number.h"
#include "io/table_text.h"
#include "io/whole_kernel_report.h"

namespace mp {
namespace {

nlohmann::json device_json(const DeviceSummary& d) {
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
          {"sm_count", d.sm_count},
          {"pipe_rates", d.rates},
          {"instruction_mix", d.mix_source}};
}

const char* tile_order_name(const MeasuredRow& r) {
  return r.tiles_by_cost ? "cost" : "rows";
}

// The frame's share of the view's limits, %: divergence-aware and divergence-free.
double pct_of_limit(const MeasuredRow& r, bool free) {
  return r.limit ? 100 * fraction_of_limit(free ? r.limit->free_ms : r.limit->aware_ms,
                                           r.measured.kernel_ms)
                 : 0;
}

nlohmann::json limit_json(const MeasuredRow& r) {
  if (!r.limit) return nullptr;
  const ViewLimit& l = *r.limit;
  return {{"ms", l.aware_ms},
          {"free_ms", l.free_ms},
          {"clock_ghz", l.clock_ghz},
          {"slots_per_step", kLimitSlotsPerStep},
          {"pixel_steps", l.pixel_steps},
          {"warp_steps", l.warp_steps},
          {"pct_of_limit", pct_of_limit(r, false)},
          {"pct_of_limit_free", pct_of_limit(r, true)}};
}

std::string limit_csv_cells(const MeasuredRow& r) {
  if (!r.limit) return ",,,,";
  return "," + fmt("%.4f", r.limit->aware_ms) + "," + fmt("%.4f", r.limit->free_ms) + "," +
         fmt("%.2f", pct_of_limit(r, false)) + "," + fmt("%.2f", pct_of_limit(r, true));
}

std::string limit_md_cells(const MeasuredRow& r) {
  if (!r.limit) return " n/a | n/a |";
  return " " + fmt("%.3f", r.limit->aware_ms) + " (" + fmt("%.3f", r.limit->free_ms) + ") | " +
         fmt("%.1f%%", pct_of_limit(r, false)) + " (" + fmt("%.1f%%", pct_of_limit(r, true)) +
         ") |";
}

// The kit's sources' columns (CUDA events, SM clock64) and the tile order.
nlohmann::json measured_json(const MeasuredRow& r) {
  nlohmann::json j = {{"tile_order", tile_order_name(r)}, {"kernel_build", r.kernel_build}};
  for (const SourceColumns& s : {events_columns(r.measured), clock64_columns(r.measured)})
    for (const MeasureColumn& c : s.columns) j[c.key] = c.value.value_or(0);
  if (r.measured.rounds >= 0) {  // perturb's: the whole-kernel model's counts of its rounds
    j["rounds"] = r.measured.rounds;
    j["done_rounds"] = r.measured.done_rounds;
    j["rebase_rounds"] = r.measured.rebase_rounds;
  }
  return j;
}

// Where a row was measured: the view in its files' text form.
void add_view_json(nlohmann::json& j, const View& v) {
  j["center"] = {centre_text(v.center_x, v), centre_text(v.center_y, v)};
  j["span"] = exact_span_text(v.span);
  j["iters"] = v.max_iter;
}

std::string count_text(std::uint64_t n) {
  return std::to_string(n);
}

nlohmann::json stalls_json(const MeasuredRow& r) {
  const CounterFigures& c = *r.stalls;
  if (!c.stalls) return {{"unavailable", c.unavailable}};
  const StallFigures& f = *c.stalls;
  const StallSummary sum = summarize(f);
  nlohmann::json reasons = nlohmann::json::array();
  for (const ReasonShare& x : sum.reasons)
    reasons.push_back({{"state", x.label},
                       {"samples", x.samples},
                       {"share", x.share},
                       {"not_issued", x.not_issued}});
  nlohmann::json j = {{"readings", f.readings},
                      {"period_log2", f.period_log2},
                      {"samples", sum.samples},
                      {"not_issued", sum.not_issued},
                      {"cupti_total", f.cupti_total},
                      {"dropped", f.dropped},
                      {"other_kernels", f.non_user},
                      {"buffer_full", f.buffer_full},
                      {"kernel", kernel_name(r.stall_kernel)},
                      {"kernel_samples", f.samples_in(r.stall_kernel)},
                      {"states", reasons}};
  j["step_loop_share"] =
      r.stall_loop_share >= 0 ? nlohmann::json(r.stall_loop_share) : nlohmann::json();
  const ReasonShare* lead = sum.leading_stall();
  j["leading_stall"] = lead ? nlohmann::json(lead->label) : nlohmann::json();
  return j;
}

nlohmann::json row_json(const MeasuredRow& r, bool with_counters) {
  const Metrics& m = r.metrics;
  nlohmann::json j = {
      {"view", r.view_name},
      {"variant", r.variant},
      {"width", r.width},
      {"height", r.height},
      {"frames", r.frames},
      {"measured", measured_json(r)},
      {"derived",
       {{"clock_ghz", m.clock_ghz},
        {"giter_per_s", m.giter_per_s},
        {"giter_per_s_counted",
         r.counted_iters > 0 ? nlohmann::json(counted_giter_per_s(r)) : nlohmann::json()},
        {"steps",
         "giter_per_s: of the steps run; _counted: of the steps the "
         "pixels count (more where orbits found periodic stop early)"},
        {"simt_efficiency", m.simt_efficiency},
        {"sm_balance", m.sm_balance}}},
      {"pixels_differing_from_fma4", r.differing_from_fma4},
      {"model",
       {{"bound_max_cycles", m.bound.max_cycles},
        {"bound_max_ms", m.bound_max_ms},
        {"bound_sum_cycles", m.bound.sum_cycles},
        {"bound_sum_ms", m.bound_sum_ms},
        {"limiting_pipe", pipe_name(m.bound.limiting)},
        {"pct_of_bound", 100 * m.fraction_of_bound}}},
      {"limit", limit_json(r)}};
  add_view_json(j, r.view);
  if (with_counters) {
    j["counters"] = counter_json(r.counters);
    j["model_busy"] = model_busy_json(r.model_busy);
    j["model_instructions"] = r.model_instructions;
  }
  if (r.stalls) j["stalls"] = stalls_json(r);
  if (r.whole) j["whole_kernel"] = whole_kernel_json(r);
  return j;
}

}  // namespace

double counted_giter_per_s(const MeasuredRow& r) {
  if (r.counted_iters <= 0) return -1;
  return r.measured.kernel_ms > 0 ? r.counted_iters / (r.measured.kernel_ms * 1e6) : 0;
}

nlohmann::json to_json(const MeasuredRow& r) {
  return row_json(r, r.counters.has_value());
}

std::string bench_csv_header(bool with_counters) {
  return kBenchCsvHeader + (with_counters ? counter_csv_header() : std::string());
}

std::vector<ZoomTotal> zoom_totals(const std::vector<MeasuredRow>& rows) {
  std::vector<ZoomTotal> totals;
  for (const MeasuredRow& r : rows) {
    auto t = std::find_if(totals.begin(), totals.end(),
                          [&](const ZoomTotal& z) { return z.variant == r.variant; });
    if (t == totals.end()) t = totals.insert(totals.end(), ZoomTotal{r.variant});
    ++t->views;
    t->kernel_ms += r.measured.kernel_ms;
    if (r.limit) {
      t->limit_ms += r.limit->aware_ms;
      t->limit_free_ms += r.limit->free_ms;
    }
  }
  return totals;
}

int balance_point(const std::vector<SineSweepRow>& sweep, bool measured) {
  int best = -1;
  double best_score = -1;
  for (const SineSweepRow& r : sweep) {
    const double score =
        measured ? std::min(r.xu_busy, r.issue_busy) : std::min(r.xu_predicted, r.issue_predicted);
    if (score > best_score) {
      best_score = score;
      best = r.sines;
    }
  }
  return best;
}

namespace {

nlohmann::json sweep_json(const SineSweepRow& r) {
  return {
      {"sines_per_step", r.sines},
      {"mix_per_step",
       {{"fma", r.per_step.fma},
        {"alu", r.per_step.alu},
        {"xu", r.per_step.xu},
        {"other", r.per_step.other},
        {"from_sass", r.mix_from_sass}}},
      {"warp_steps", r.warp_steps},
      {"measured_sm_cycles", r.measured_cycles},
      {"bound_max_cycles", r.bound.max_cycles},
      {"limiting_pipe", pipe_name(r.bound.limiting)},
      {"pct_of_bound", r.measured_cycles > 0 ? 100 * r.bound.max_cycles / r.measured_cycles : 0},
      {"xu_busy_measured", r.xu_busy},
      {"issue_busy_measured", r.issue_busy},
      {"xu_busy_predicted", r.xu_predicted},
      {"issue_busy_predicted", r.issue_predicted}};
}

}  // namespace

nlohmann::json deep_json(const DeepRow& r) {
  return {
      {"view", r.view_name},
      {"rendered_by", r.rendered_by},
      {"width", r.width},
      {"height", r.height},
      {"center", {centre_text(r.view.center_x, r.view), centre_text(r.view.center_y, r.view)}},
      {"span", exact_span_text(r.view.span)},
      {"iters", r.view.max_iter},
      {"frames", r.frames},
      {"kernel_ms", r.kernel_ms},
      {"every_step_kernel_ms", r.every_step_ms},
      {"pixel_iters", r.counted},
      {"iterated", r.iterated},
      {"rebases", r.rebases},
      {"giter_per_s", r.kernel_ms > 0 ? r.counted / r.kernel_ms * 1e-6 : 0.0},
      {"every_step_giter_per_s", r.every_step_ms > 0 ? r.counted / r.every_step_ms * 1e-6 : 0.0},
      {"reference",
       {{"bits", r.reference_bits},
        {"steps", r.reference_steps},
        {"orbit_ms", r.reference_ms},
        {"table_ms", r.table_ms}}}};
}

std::string stall_table_md(const MeasuredRow& r) {
  std::ostringstream s;
  s << "#### " << md_text(r.variant) << " at " << md_text(r.view_name) << ": ";
  if (!r.stalls) return s.str() + "not read\n";
  const CounterFigures& c = *r.stalls;
  if (!c.stalls) return s.str() + "n/a (" + md_text(c.unavailable) + ")\n";
  const StallFigures& f = *c.stalls;
  const StallSummary sum = summarize(f);
  s << count_text(sum.samples) << " samples over " << f.readings
    << (f.readings == 1 ? " frame" : " frames");
  if (!r.stall_kernel.empty()) {
    const std::uint64_t in_kernel = f.samples_in(r.stall_kernel);
    s << ", " << fmt("%.1f%%", sum.samples ? 100.0 * in_kernel / sum.samples : 0) << " in "
      << md_text(kernel_name(r.stall_kernel));
    if (r.stall_loop_share >= 0)
      s << " (" << fmt("%.1f%%", 100 * r.stall_loop_share) << " of those on its step loop's lines)";
  }
  if (f.dropped > 0 || f.buffer_full)
    s << "; " << count_text(f.dropped) << " dropped by the hardware"
      << (f.buffer_full ? ", its buffer filled: samples were lost" : "");
  s << "\n\n| warp state | samples | share | in a cycle nothing issued |\n|---|---:|---:|---:|\n";
  // Chips whose PC sampling has no not-issued parts leave the last column empty.
  const bool parts = std::any_of(f.reasons.begin(), f.reasons.end(),
                                 [](const StallReason& x) { return x.not_issued; });
  for (const ReasonShare& x : sum.reasons)
    s << "| " << md_text(x.label) << (is_stall(x.label) ? "" : " (not a stall)") << " | "
      << count_text(x.samples) << " | " << fmt("%.1f%%", 100 * x.share) << " | "
      << (parts ? fmt("%.1f%%", sum.samples ? 100.0 * x.not_issued / sum.samples : 0)
                : std::string("-"))
      << " |\n";
  return s.str();
}

std::string format_bench(const BenchReport& rep, OutputFormat format) {
  std::ostringstream s;
  const bool counters = any_counters(rep.rows);
  if (format == OutputFormat::Json) {
    nlohmann::json j;
    j["device"] = device_json(rep.device);
    j["rows"] = nlohmann::json::array();
    for (const MeasuredRow& r : rep.rows) j["rows"].push_back(row_json(r, counters));
    if (!rep.deep.empty()) {
      j["deep"] = nlohmann::json::array();
      for (const DeepRow& r : rep.deep) j["deep"].push_back(deep_json(r));
    }
    if (!rep.zoom.empty()) {
      j["zoom_totals"] = nlohmann::json::array();
      for (const ZoomTotal& z : rep.zoom)
        j["zoom_totals"].push_back({{"variant", z.variant},
                                    {"views", z.views},
                                    {"kernel_ms", z.kernel_ms},
                                    {"limit_ms", z.limit_ms},
                                    {"limit_free_ms", z.limit_free_ms}});
    }
    if (!rep.present.empty()) {
      j["present"] = nlohmann::json::array();
      for (const PresentRow& p : rep.present)
        j["present"].push_back({{"path", p.path}, {"ms", p.ms}, {"what", p.what}});
    }
    if (!rep.stall_source.empty()) j["stall_source"] = rep.stall_source;
    if (!rep.sweep.empty()) {
      j["sine_sweep"] = nlohmann::json::array();
      for (const SineSweepRow& r : rep.sweep) j["sine_sweep"].push_back(sweep_json(r));
      j["sine_balance"] = {{"measured", balance_point(rep.sweep, true)},
                           {"predicted", balance_point(rep.sweep, false)}};
    }
    s << j.dump(2) << "\n";
    return s.str();
  }
  if (format == OutputFormat::Csv) {
    if (!rep.present.empty() || !rep.sweep.empty() || !rep.deep.empty())
      throw std::invalid_argument(
          "bench CSV holds the views' rows only; the present paths, the sine sweep and views "
          "past double (perturbation) need JSON or Markdown");
    const std::vector<SourceColumns> table = table_sources(rep.rows);
    s << kBenchCsvHeader << (counters ? columns_csv_header(table) : "") << "\n";
    for (const MeasuredRow& r : rep.rows) {
      const Metrics& m = r.metrics;
      s << r.view_name << "," << r.variant << "," << r.width << "," << r.height << ","
        << centre_text(r.view.center_x, r.view) << "," << centre_text(r.view.center_y, r.view)
        << "," << exact_span_text(r.view.span) << "," << r.view.max_iter << "," << r.frames << ","
        << fmt("%.4f", r.measured.kernel_ms) << "," << fmt("%.0f", r.measured.sm_cycles) << ","
        << fmt("%.4f", m.clock_ghz) << "," << fmt("%.3f", m.giter_per_s) << ","
        << (r.counted_iters > 0 ? fmt("%.3f", counted_giter_per_s(r)) : std::string()) << ","
        << fmt("%.0f", r.measured.pixel_iters) << ","
        << (r.counted_iters > 0 ? fmt("%.0f", r.counted_iters) : std::string()) << ","
        << fmt("%.0f", r.measured.warp_iters) << "," << fmt("%.4f", m.simt_efficiency) << ","
        << fmt("%.0f", r.measured.sm_cycles_mean) << "," << fmt("%.4f", m.sm_balance) << ","
        << tile_order_name(r) << "," << fmt("%.0f", m.bound.max_cycles) << ","
        << fmt("%.4f", m.bound_max_ms) << "," << fmt("%.0f", m.bound.sum_cycles) << ","
        << fmt("%.4f", m.bound_sum_ms) << "," << pipe_name(m.bound.limiting) << ","
        << fmt("%.2f", 100 * m.fraction_of_bound) << "," << r.differing_from_fma4
        << limit_csv_cells(r) << (counters ? columns_csv_cells(row_sources(table, r.counters)) : "")
        << "\n";
    }
    return s.str();
  }
  s << "Device: " << rep.device.name << " (sm_" << rep.device.cc_major << rep.device.cc_minor
    << ", " << rep.device.sm_count << " SMs); model: " << rep.device.rates
    << "; instruction mix: " << rep.device.mix_source << "\n\n";
  s << "Tile order: cost = costliest tiles first, by the previous frame of the same view; rows = "
       "in tile numbering order, as the first frame of a new view.\n\n";
  s << "Limit: the view's physical limit, 4 FMA-pipe issue slots per step at the peak clock, "
       "with warps of 16x2 pixels running to their slowest pixel (in brackets: every lane busy); "
       "% of limit = limit / kernel ms. fma4-cycles does not run the steps of orbits it finds "
       "periodic, which the limit counts: it can pass 100%.\n\n";
  std::string paths;
  std::set<std::string> named;
  for (const MeasuredRow& r : rep.rows)
    if (r.loop_branches > 0 && named.insert(r.variant).second)
      paths += (paths.empty() ? "" : ", ") + r.variant + " (" + std::to_string(r.loop_branches) +
               (r.loop_branches == 1 ? " branch)" : " branches)");
  if (!paths.empty())
    s << "Bound: from each variant's step loop in the SASS, every listed instruction once a step. "
         "The listings of "
      << paths
      << " hold paths a step chooses between: their model counts them all, more than a step "
         "issues, so their bound is an upper one and their % of bound can pass 100%.\n\n";
  s << "Giter/s: run = of the steps the kernel ran; counted = of the steps the pixels count, more "
       "where a variant stops orbits it finds periodic.\n\n";
  s << "| view | variant | tile order | kernel ms | SM cycles | clock GHz | Giter/s run | Giter/s "
       "counted | SIMT eff. | SM balance | bound max ms (pipe) | bound sum ms | % of bound | px ≠ "
       "fma4 | limit ms (free) | % of limit (free) |\n"
    << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const MeasuredRow& r : rep.rows) {
    const Metrics& m = r.metrics;
    s << "| " << r.view_name << " | " << r.variant << " | " << tile_order_name(r) << " | "
      << fmt("%.3f", r.measured.kernel_ms) << " | " << fmt("%.3f", r.measured.sm_cycles / 1e6)
      << " M | " << fmt("%.3f", m.clock_ghz) << " | " << fmt("%.1f", m.giter_per_s) << " | "
      << (r.counted_iters > 0 ? fmt("%.1f", counted_giter_per_s(r)) : std::string("-")) << " | "
      << fmt("%.1f%%", 100 * m.simt_efficiency) << " | " << fmt("%.1f%%", 100 * m.sm_balance)
      << " | " << fmt("%.3f", m.bound_max_ms) << " (" << pipe_name(m.bound.limiting) << ") | "
      << fmt("%.3f", m.bound_sum_ms) << " | " << fmt("%.1f%%", 100 * m.fraction_of_bound)
      << (r.loop_branches > 0 ? " (of an upper bound)" : "") << " | "
      << (r.differing_from_fma4 < 0 ? std::string("-") : std::to_string(r.differing_from_fma4))
      << " |" << limit_md_cells(r) << "\n";
  }
  if (!rep.deep.empty()) {
    s << "\nViews past double, rendered by perturbation (the plain variants cannot separate "
         "their pixels): in each format asked for with --variant that holds there, else as the "
         "window renders them; kernel ms, median, with the bilinear "
         "approximation and with every step iterated; steps counted as the variants count them.\n\n"
         "| view | rendered by | kernel ms | every step ms | steps counted | iterated | Giter/s "
         "counted | Giter/s every step | SIMT eff. (every step) | reference (bits, steps, ms) |\n"
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const DeepRow& r : rep.deep)
      s << "| " << md_text(r.view_name) << " | " << r.rendered_by << " | "
        << fmt("%.3f", r.kernel_ms) << " | " << fmt("%.3f", r.every_step_ms) << " | "
        << fmt("%.4g", r.counted) << " | " << fmt("%.4g", r.iterated) << " ("
        << fmt("%.2f%%", r.counted > 0 ? 100 * r.iterated / r.counted : 0) << ") | "
        << fmt("%.1f", r.kernel_ms > 0 ? r.counted / r.kernel_ms * 1e-6 : 0) << " | "
        << fmt("%.1f", r.every_step_ms > 0 ? r.counted / r.every_step_ms * 1e-6 : 0) << " | "
        << fmt("%.1f%%", 100 * r.simt) << " (" << fmt("%.1f%%", 100 * r.every_step_simt) << ") | "
        << r.reference_bits << ", " << fmt("%.0f", r.reference_steps) << ", "
        << fmt("%.0f", r.reference_ms) << " ms |\n";
  }
  if (!rep.zoom.empty()) {
    s << "\nThe zoom path, every view's first frame added up:\n\n| variant | views | kernel ms | "
         "limit ms (free) | % of limit (free) |\n|---|---:|---:|---:|---:|\n";
    for (const ZoomTotal& z : rep.zoom)
      s << "| " << md_text(z.variant) << " | " << z.views << " | " << fmt("%.3f", z.kernel_ms)
        << " | " << fmt("%.3f", z.limit_ms) << " (" << fmt("%.3f", z.limit_free_ms) << ") | "
        << fmt("%.1f%%", 100 * fraction_of_limit(z.limit_ms, z.kernel_ms)) << " ("
        << fmt("%.1f%%", 100 * fraction_of_limit(z.limit_free_ms, z.kernel_ms)) << ") |\n";
  }
  if (counters) {
    const std::vector<SourceColumns> table = table_sources(rep.rows);
    s << columns_md_head(table, "| view | variant |", "|---|---|");
    for (const MeasuredRow& r : rep.rows)
      s << "| " << md_text(r.view_name) << " | " << md_text(r.variant) << " |"
        << columns_md_cells(row_sources(table, r.counters), r.model_busy) << "\n";
    // Where counters and model part on the issue pipe, this is why: the model counts the step
    // loop's instructions only, the counters every instruction the kernel ran.
    s << "\nInstructions (warp-level) the counters counted against those of the modelled step "
         "loop; the rest (per pixel, per tile, the queue, escape back-off) is what the model "
         "leaves out.\n\n| view | variant | counted | step loop (model) | outside the loop |\n"
         "|---|---|---:|---:|---:|\n";
    for (const MeasuredRow& r : rep.rows) {
      const bool valid = r.counters && r.counters->unavailable.empty();
      const double counted = valid ? r.counters->warp_instructions : 0;
      s << "| " << md_text(r.view_name) << " | " << md_text(r.variant) << " | "
        << (valid ? fmt("%.4g", counted) : std::string("n/a")) << " | "
        << fmt("%.4g", r.model_instructions) << " | "
        << (valid && counted > 0 ? fmt("%.1f%%", 100 * (counted - r.model_instructions) / counted)
                                 : std::string("n/a"))
        << " |\n";
    }
    s << whole_kernel_md(rep.rows);
  }
  if (std::any_of(rep.rows.begin(), rep.rows.end(),
                  [](const MeasuredRow& r) { return r.stalls.has_value(); })) {
    int period = 0;
    for (const MeasuredRow& r : rep.rows)
      if (r.stalls && r.stalls->stalls) period = r.stalls->stalls->period_log2;
    s << "\nWhy warps did not issue: CUPTI's PC sampling over frames of their own after each "
         "variant's timed ones (the timed frames run without it)"
      << (period > 0 ? ", a warp's state every 2^" + std::to_string(period) + " cycles of each SM"
                     : std::string())
      << ". A sample is one warp: \"selected\" it issued, \"not selected\" it "
         "was ready while another warp issued, every other state a stall (docs/model.md, "
         "glossary); the last column: the samples of that state taken in a cycle in which its "
         "scheduler issued nothing, a slot lost.\n";
    if (!rep.stall_source.empty()) s << "\n" << md_text(rep.stall_source) << ".\n";
    for (const MeasuredRow& r : rep.rows)
      if (r.stalls) s << "\n" << stall_table_md(r);
  }
  if (!rep.present.empty()) {
    s << "\n| present path (3840x2160) | ms/frame | what is timed |\n|---|---:|---|\n";
    for (const PresentRow& p : rep.present)
      s << "| " << p.path << " | " << fmt("%.3f", p.ms) << " | " << p.what << " |\n";
  }
  if (!rep.sweep.empty()) {
    s << "\n| sines/step | mix per step FMA/ALU/XU/other | SM Mcycles | bound Mcycles (pipe) | % "
         "of "
         "bound | XU busy | issue busy | XU busy (model) | issue busy (model) |\n"
      << "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const SineSweepRow& r : rep.sweep)
      s << "| " << r.sines << " | " << fmt("%g", r.per_step.fma) << "/" << fmt("%g", r.per_step.alu)
        << "/" << fmt("%g", r.per_step.xu) << "/" << fmt("%g", r.per_step.other)
        << (r.mix_from_sass ? " (SASS)" : " (declared)") << " | "
        << fmt("%.3f", r.measured_cycles / 1e6) << " | " << fmt("%.3f", r.bound.max_cycles / 1e6)
        << " (" << pipe_name(r.bound.limiting) << ") | "
        << fmt("%.1f%%", 100 * r.bound.max_cycles / r.measured_cycles) << " | "
        << fmt("%.1f%%", 100 * r.xu_busy) << " | " << fmt("%.1f%%", 100 * r.issue_busy) << " | "
        << fmt("%.1f%%", 100 * r.xu_predicted) << " | " << fmt("%.1f%%", 100 * r.issue_predicted)
        << " |\n";
    s << "\nBalance point (the less busy of XU and issue at its busiest): measured "
      << balance_point(rep.sweep, true) << " sines per step, predicted "
      << balance_point(rep.sweep, false) << ".\n";
  }
  return s.str();
}

}  // namespace mp
