// The perturbation kernels: a thread a pixel, each running perturb_orbit (perturbation.h) against
// the reference orbit and its bilinear tables in global memory (read through the L1 cache: every
// warp walks the same orbit, mostly in step).
#include <algorithm>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "gpu_perturbation.h"
#include "kernel_params.h"
#include "measure_kit.h"

namespace mp {
namespace {

template <class D>
__device__ typename D::Value delta_value(ComplexExp dc);
template <>
__device__ DeltaDouble::Value delta_value<DeltaDouble>(ComplexExp dc) {
  return {real_double(dc), imag_double(dc)};
}
template <>
__device__ DeltaExp::Value delta_value<DeltaExp>(ComplexExp dc) {
  return dc;
}

__device__ unsigned warp_max(unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ void add_warp(unsigned long long v, unsigned long long* to) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v) atomicAdd(to, v);
}

template <class D>
__global__ void __launch_bounds__(256)
    perturb_kernel(RefOrbitView ref, BlaView<typename D::Bla> bla, DeepGrid grid, PixelRect rect,
                   unsigned max_iter, float* out, unsigned* counts, PerturbTally* tallies) {
  const int x = blockIdx.x * 16 + threadIdx.x % 16, y = blockIdx.y * 16 + threadIdx.x / 16;
  PerturbResult r;
  if (x < rect.width && y < rect.height) {
    const ComplexExp dc = pixel_dc(grid, rect.x0 + x, rect.y0 + y);
    r = perturb_orbit<D>(ref, bla, delta_value<D>(dc), max_iter);
    const std::size_t i = static_cast<std::size_t>(y) * rect.width + x;
    out[i * kFloatsPerPixel] = perturb_smooth(r);
    out[i * kFloatsPerPixel + 1] = 0.0f;
    if (counts) counts[i] = r.n;
  }
  add_warp(r.n, &tallies->pixel_iters);
  add_warp(r.iterated, &tallies->iterated);
  add_warp(r.rebases, &tallies->rebases);
  const unsigned slowest = warp_max(r.iterated);
  if ((threadIdx.x & 31) == 0 && slowest) atomicAdd(&tallies->warp_iterated, slowest);
}

}  // namespace

struct GpuPerturbation::Impl {
  DeviceBuffer<RefPoint> orbit;
  unsigned length = 0;
  DeviceBuffer<BlaD> bla_double;
  DeviceBuffer<BlaX> bla_extended;
  unsigned offset[kMaxBlaLevels + 1] = {};
  int levels = 0;
  DeviceBuffer<PerturbTally> tallies{1};
  Stream stream;
  Event start, stop;
};

GpuPerturbation::GpuPerturbation() : impl_(std::make_unique<Impl>()) {}
GpuPerturbation::~GpuPerturbation() = default;

void GpuPerturbation::set_reference(RefOrbitView orbit, const BlaD* bla_double,
                                    const BlaX* bla_extended, const unsigned* offset, int levels) {
  Impl& s = *impl_;
  // The old reference's memory first: two of them at once could not fit where one just does.
  s.orbit = DeviceBuffer<RefPoint>();
  s.bla_double = DeviceBuffer<BlaD>();
  s.bla_extended = DeviceBuffer<BlaX>();
  s.orbit = DeviceBuffer<RefPoint>(orbit.length);
  CUDA_CHECK(
      cudaMemcpy(s.orbit.get(), orbit.z, orbit.length * sizeof(RefPoint), cudaMemcpyHostToDevice));
  s.length = orbit.length;
  s.levels = std::min(levels, kMaxBlaLevels);
  const unsigned entries = s.levels > 0 ? offset[s.levels] : 0;
  for (int l = 0; l <= s.levels; ++l) s.offset[l] = offset[l];
  s.bla_double = DeviceBuffer<BlaD>(entries);
  s.bla_extended = DeviceBuffer<BlaX>(entries);
  if (entries) {
    CUDA_CHECK(
        cudaMemcpy(s.bla_double.get(), bla_double, entries * sizeof(BlaD), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s.bla_extended.get(), bla_extended, entries * sizeof(BlaX),
                          cudaMemcpyHostToDevice));
  }
}

template <class B>
static BlaView<B> table_view(const B* entries, const unsigned* offset, int levels) {
  BlaView<B> v;
  v.entries = entries;
  v.levels = levels;
  for (int l = 0; l <= levels; ++l) v.offset[l] = offset[l];
  return v;
}

GpuPerturbStats GpuPerturbation::render(DeltaFormat format, const DeepGrid& grid, PixelRect rect,
                                        unsigned max_iter, float* out, unsigned* counts,
                                        bool approximate) {
  Impl& s = *impl_;
  const int levels = approximate ? s.levels : 0;
  const RefOrbitView ref{s.orbit.get(), s.length};
  const dim3 blocks((rect.width + 15) / 16, (rect.height + 15) / 16);
  CUDA_CHECK(cudaMemsetAsync(s.tallies.get(), 0, sizeof(PerturbTally), s.stream.get()));
  CUDA_CHECK(cudaEventRecord(s.start.get(), s.stream.get()));
  if (format == DeltaFormat::Double)
    perturb_kernel<DeltaDouble>
        <<<blocks, 256, 0, s.stream.get()>>>(ref, table_view(s.bla_double.get(), s.offset, levels),
                                             grid, rect, max_iter, out, counts, s.tallies.get());
  else
    perturb_kernel<DeltaExp><<<blocks, 256, 0, s.stream.get()>>>(
        ref, table_view(s.bla_extended.get(), s.offset, levels), grid, rect, max_iter, out, counts,
        s.tallies.get());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(s.stop.get(), s.stream.get()));
  PerturbTally t;
  CUDA_CHECK(
      cudaMemcpyAsync(&t, s.tallies.get(), sizeof t, cudaMemcpyDeviceToHost, s.stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
  GpuPerturbStats st;
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, s.start.get(), s.stop.get()));
  st.kernel_ms = ms;
  static_cast<PerturbTally&>(st) = t;
  return st;
}

}  // namespace mp
