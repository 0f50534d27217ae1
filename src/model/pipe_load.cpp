#include "pipe_load.h"

#include <algorithm>

#include "sm_arch.h"

namespace mp {

bool has_heavy_lite_split(const PipeRates& r) {
  return sm_arch(r.cc_major, r.cc_minor) >= 86 && r[Pipe::Fma] >= 4;
}

std::vector<PipeLoad> pipe_loads(const PipeRates& rates, int sm_count, const InstrMix& per_step,
                                 double heavy_only, double warp_steps, double measured_cycles,
                                 double clock_ghz) {
  const Bound b = compute_bound(rates, sm_count, per_step, warp_steps);
  std::vector<PipeLoad> out;
  auto add = [&](std::string name, double cycles) {
    PipeLoad p;
    p.name = std::move(name);
    p.busy_cycles = cycles;
    p.utilisation = measured_cycles > 0 ? cycles / measured_cycles : 0;
    p.alone_ms = clock_ghz > 0 ? cycles / (clock_ghz * 1e6) : 0;
    out.push_back(p);
  };
  add("FMA", b.cycles_of(Pipe::Fma));
  if (heavy_only >= 0 && has_heavy_lite_split(rates)) {
    // Each half takes half the pipe's rate; heavy-only work cannot move to the lite half.
    const double total = per_step.fma;
    const double heavy = std::max(heavy_only, total / 2), lite = total - heavy;
    const double half_rate = rates[Pipe::Fma] / 2 * sm_count;
    add("fmaheavy", warp_steps * heavy / half_rate);
    add("fmalite", warp_steps * lite / half_rate);
  }
  add("ALU", b.cycles_of(Pipe::Alu));
  add("XU", b.cycles_of(Pipe::Xu));
  add("FP64", b.cycles_of(Pipe::Fp64));
  add("LSU", b.cycles_of(Pipe::Lsu));
  add("issue", b.cycles_of(Pipe::Issue));
  auto most = std::max_element(out.begin(), out.end(), [](const PipeLoad& a, const PipeLoad& c) {
    return a.busy_cycles < c.busy_cycles;
  });
  if (most != out.end() && most->busy_cycles > 0) most->limiting = true;
  return out;
}

}  // namespace mp
