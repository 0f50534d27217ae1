#include "io/whole_kernel_report.h"

#include <algorithm>
#include <sstream>

#include "io/format_number.h"
#include "io/table_text.h"

namespace mp {
namespace {

constexpr KernelPart kParts[] = {KernelPart::StepLoop, KernelPart::PerBlock, KernelPart::PerPixel,
                                 KernelPart::PerLaunch};
// The pipes bench's table compares, in the overlay's order; a column where any row's counters
// read it.
constexpr const char* kPipes[] = {"issue", "FMA", "fmaheavy", "fmalite", "ALU", "XU", "FP64"};

const CounterPipe* find_pipe(const std::vector<CounterPipe>& pipes, const std::string& name) {
  for (const CounterPipe& p : pipes)
    if (p.name == name) return &p;
  return nullptr;
}

bool counters_valid(const MeasuredRow& r) {
  return r.counters && r.counters->unavailable.empty();
}

}  // namespace

nlohmann::json whole_kernel_json(const MeasuredRow& r) {
  if (!r.whole) return {{"unusable", "not computed"}};
  const WholeKernel& w = *r.whole;
  if (!w.ok()) return {{"unusable", w.unusable}};
  nlohmann::json parts = nlohmann::json::object(), busy = nlohmann::json::object();
  for (KernelPart p : kParts) parts[kernel_part_name(p)] = w.part(p).mix.total();
  for (const CounterPipe& p : r.whole_busy) busy[p.name] = p.pct;
  return {{"instructions", w.instructions()},
          {"outside_step_loop", w.outside_step_loop()},
          {"parts", parts},
          {"busy", busy},
          {"bound_max_cycles", r.whole_bound.max_cycles},
          {"limiting_pipe", pipe_name(r.whole_bound.limiting)},
          {"pct_of_bound",
           r.measured.sm_cycles > 0 ? 100 * r.whole_bound.max_cycles / r.measured.sm_cycles : 0.0},
          {"measured_sm_cycles", r.measured.sm_cycles},
          {"measured_kernel_ms", r.measured.kernel_ms},
          {"measured_warp_steps", r.measured.warp_iters},
          {"unplaced", w.unplaced},
          {"not_modelled", w.not_modelled}};
}

std::string whole_kernel_md(const std::vector<MeasuredRow>& rows) {
  std::vector<std::string> pipes;
  for (const char* name : kPipes)
    if (std::any_of(rows.begin(), rows.end(), [&](const MeasuredRow& r) {
          return counters_valid(r) && r.counters->find(name);
        }))
      pipes.push_back(name);
  std::ostringstream s;
  s << "\nThe whole-kernel model (docs/model.md, \"The whole kernel\") against the counters: "
       "instructions (warp-level), then each pipe's busy share, model / counters (model minus "
       "counters, in points).\n\n| view | variant | instructions model / counters | diff | "
       "outside the step loop |";
  for (const std::string& p : pipes) s << " " << p << " |";
  s << "\n|---|---|---:|---:|---:|";
  for (std::size_t i = 0; i < pipes.size(); ++i) s << "---:|";
  s << "\n";
  for (const MeasuredRow& r : rows) {
    s << "| " << md_text(r.view_name) << " | " << md_text(r.variant) << " | ";
    if (!r.whole || !r.whole->ok()) {
      s << "n/a: " << md_text(r.whole ? r.whole->unusable : "not computed") << " | | |";
      for (std::size_t i = 0; i < pipes.size(); ++i) s << " |";
      s << "\n";
      continue;
    }
    const bool valid = counters_valid(r);
    const double model = r.whole->instructions(),
                 counted = valid ? r.counters->warp_instructions : 0;
    s << fmt("%.4g", model) << " / " << (valid ? fmt("%.4g", counted) : std::string("n/a")) << " | "
      << (valid && counted > 0 ? fmt("%+.1f%%", 100 * (model - counted) / counted)
                               : std::string("n/a"))
      << " | " << fmt("%.1f%%", 100 * r.whole->outside_step_loop()) << " |";
    for (const std::string& name : pipes) {
      const CounterPipe* m = find_pipe(r.whole_busy, name);
      const CounterPipe* c = valid ? r.counters->find(name) : nullptr;
      s << " " << (m ? fmt("%.1f", m->pct) : std::string("-")) << " / "
        << (c ? fmt("%.1f", c->pct) : std::string("-"));
      if (m && c) s << " (" << fmt("%+.1f", m->pct - c->pct) << ")";
      s << " |";
    }
    s << "\n";
  }
  return s.str();
}

}  // namespace mp
