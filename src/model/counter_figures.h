// What the GPU's own counters read for one measured launch (a frame, or an experiment's
// kernel), and the interface the measuring code calls around such a launch. Plain data: the
// CUPTI source behind it lives in src/counters/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/measure_columns.h"
#include "model/stall_figures.h"

namespace mp {

struct CounterPipe {
  std::string name;  // as the model names its pipes: FMA, fmaheavy, fmalite, ALU, XU, FP64, LSU,
                     // issue, and "SM active" (counters only)
  double pct = 0;    // busy cycles the counters saw over the launch's measured SM cycles, in %
};

struct CounterFigures {
  std::string unavailable;         // empty: the figures below are valid; else why not, one line
  std::vector<CounterPipe> pipes;  // the pipes this launch's configuration counted
  double clock_ghz = 0;            // the SM clock the counters saw over the launch
  double warp_instructions = 0;    // instructions executed (warp-level), all SMs
  double span_ms = 0;              // the launch's kernels, first start to last end (CUPTI)
  int samples = 0;                 // PM samples that overlapped it
  int configuration = 0;           // which of the source's configurations counted it (0 or 1)
  // Further counter sources read over the same launch (src/counters/counter_sources.cpp),
  // whatever the figures above say.
  std::vector<SourceColumns> sources;
  // PC sampling's reading (src/counters/pc_sampler.*): where warps were and why they did not
  // issue; empty from PM sampling.
  std::optional<StallFigures> stalls;

  const CounterPipe* find(const std::string& pipe) const {
    for (const CounterPipe& p : pipes)
      if (p.name == pipe) return &p;
    return nullptr;
  }
};

// The counters cannot count fewer instructions than the modelled step loop alone executes; where
// they do, a sample was cut short (docs/measurements.md: the short-count row), and the figures
// give way to the reason.
inline void withhold_short_counts(CounterFigures& f, double modelled_instructions) {
  if (!f.unavailable.empty() || f.warp_instructions <= 0 ||
      f.warp_instructions >= 0.98 * modelled_instructions)
    return;
  CounterFigures withheld;
  withheld.unavailable = "the counters saw " +
                         std::to_string(static_cast<long long>(f.warp_instructions)) +
                         " instructions, fewer than the " +
                         std::to_string(static_cast<long long>(modelled_instructions)) +
                         " of the modelled step loop: a sample was cut short";
  withheld.sources = std::move(f.sources);
  f = withheld;
}

// Called by whoever launches measured GPU work, on the launching thread: begin() before the
// first launch, end() once the work has completed (after the stream synchronised).
class CounterProbe {
 public:
  virtual ~CounterProbe() = default;
  // Non-empty: counters cannot be read here; the line says why and how to allow them.
  virtual std::string unavailable() const = 0;
  virtual std::uint64_t begin() = 0;
  // sm_cycles: the launch's measured SM cycles (clock64, max over SMs), the denominator the
  // model's utilisation uses too.
  virtual void end(std::uint64_t launch, double sm_cycles) = 0;
  // The figures of `launch` once attributed (empty while not yet). wait: block until they are
  // (or 4 s have passed: then they say why none came).
  virtual std::optional<CounterFigures> take(std::uint64_t launch, bool wait) = 0;
};

}  // namespace mp
