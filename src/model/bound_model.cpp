#include "bound_model.h"

#include <stdexcept>

namespace mp {

Bound compute_bound(const PipeRates& rates, int sm_count, const InstrMix& mix,
                    double warp_iterations) {
  if (sm_count <= 0) throw std::invalid_argument("compute_bound: sm_count must be positive");
  Bound b;
  const double per_pipe[kPipeCount] = {mix.fma, mix.alu, mix.xu, mix.fp64, mix.lsu, mix.total()};
  for (Pipe p : kAllPipes) {
    const int i = static_cast<int>(p);
    const double rate = rates.per_sm[i] * sm_count;
    b.cycles[i] = per_pipe[i] > 0 ? warp_iterations * per_pipe[i] / rate : 0;
    if (b.cycles[i] > b.max_cycles) {
      b.max_cycles = b.cycles[i];
      b.limiting = p;
    }
    if (p != Pipe::Issue) b.sum_cycles += b.cycles[i];
  }
  return b;
}

}  // namespace mp
