// Host interface of the perturbation kernels (cuda/perturbation_kernel.cu): a reference orbit and
// its bilinear tables held on the GPU, and a frame of a deep view rendered from them.
#pragma once

#include <cstddef>
#include <memory>

#include "perturbation.h"

namespace mp {

// The launch's tallies (warps of 16x2 pixels, as the plain kernels'), its time and SM cycles (the
// longest of the SMs' spans from first start to last end, and their mean), and whether it read
// the bilinear tables or iterated every step.
struct GpuPerturbStats : PerturbTally {
  double kernel_ms = 0;
  unsigned long long sm_cycles = 0;
  double sm_cycles_mean = 0;
  int sms_used = 0;
  bool approximated = false;
};

class GpuPerturbation {
 public:
  GpuPerturbation();  // on the calling thread's current device
  ~GpuPerturbation();
  GpuPerturbation(const GpuPerturbation&) = delete;
  GpuPerturbation& operator=(const GpuPerturbation&) = delete;

  // Copies the orbit to the GPU, replacing what it held, and keeps the pointers to the tables
  // (entries of every level, `offset` as BlaView's) and to the orbit's float copy: each is copied
  // on the first frame of a format that reads it, so the caller's memory must stay as it is
  // until the next set_reference. levels == 0: no approximation.
  void set_reference(RefOrbitView orbit, const BlaD* bla_double, const BlaX* bla_extended,
                     const BlaF* bla_float, const unsigned* offset, int levels);
  // The pixels of `rect` into device memory, row-major over the rect: `out` 2 floats a pixel as
  // the plain kernels write them, `counts` (optional) the step counts. Blocks until the stats
  // are back. approximate == false: the tables are left unread, every step iterated.
  // `warp_efficiency` (optional): the divergence view's buffer for the whole image (warp_count
  // floats, kernel_params.h's numbering), each 16x2 tile of the rect's share of its warp's steps
  // run; rect.y0 must be even.
  GpuPerturbStats render(DeltaFormat format, const DeepGrid& grid, PixelRect rect,
                         unsigned max_iter, float* out, unsigned* counts, bool approximate = true,
                         float* warp_efficiency = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mp
