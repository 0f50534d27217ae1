// The SM a warp runs on, for per-SM records. %smid is bounded by %nsmid, not by the SM count,
// so arrays indexed by it are sized generously (kernel users say how).
#pragma once

namespace mp {

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

}  // namespace mp
