#include "metrics.h"

namespace mp {

Metrics derive_metrics(const PipeRates& rates, int sm_count, const InstrMix& per_iteration,
                       const FrameNumbers& m) {
  Metrics r;
  r.clock_ghz = m.kernel_ms > 0 ? m.sm_cycles / (m.kernel_ms * 1e6) : 0;
  r.giter_per_s = m.kernel_ms > 0 ? m.pixel_iters / (m.kernel_ms * 1e6) : 0;
  r.simt_efficiency = m.warp_iters > 0 ? m.pixel_iters / (32.0 * m.warp_iters) : 0;
  r.sm_balance = m.sm_cycles > 0 ? m.sm_cycles_mean / m.sm_cycles : 0;
  r.bound = compute_bound(rates, sm_count, per_iteration, m.warp_iters);
  if (r.clock_ghz > 0) {
    r.bound_max_ms = Bound::ms(r.bound.max_cycles, r.clock_ghz * 1e9);
    r.bound_sum_ms = Bound::ms(r.bound.sum_cycles, r.clock_ghz * 1e9);
  }
  r.fraction_of_bound = fraction_of_bound(r.bound, m.sm_cycles);
  return r;
}

}  // namespace mp
