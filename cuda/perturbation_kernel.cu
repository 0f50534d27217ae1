// The perturbation kernels: a thread a pixel, each running perturb_orbit (perturbation.h) against
// the reference orbit and its bilinear tables in global memory (read through the L1 cache: every
// warp walks the same orbit, mostly in step). Measured as the plain kernels are (measure_kit.h):
// each SM's first start and last end, and the frame's tallies as per-SM counters.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "device_buffer.h"
#include "gpu_perturbation.h"
#include "kernel_params.h"
#include "measure_kit.h"
#include "perturb_lockstep.cuh"
#include "sm_id.cuh"
#include "variants.h"

namespace mp {
namespace {

// The per-SM counters of a launch, in this order (SpanLayout::extras).
enum Tally {
  kPixelIters,
  kIterated,
  kRebases,
  kWarpIterated,
  kRounds,
  kDoneRounds,
  kRebaseRounds,
  kTallies
};

__device__ unsigned warp_max(unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ unsigned long long warp_sum(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Warps take 16x2-pixel tiles, the plain kernels' warp shape, from one counter in row order: a
// warp whose pixels are done takes the next tile at once instead of idling in its block until
// the block's slowest warp is done, and the SMs run out of work together.
constexpr int kTileW = 16, kTileH = 2, kThreads = 256;

// V: the variant (variants.h), whose name the kernel's mangled name carries for the SASS reader;
// kApprox: the bilinear tables are read (false: the every-step build the model reads).
template <class V, bool kApprox>
__global__ void __launch_bounds__(kThreads)
    perturb_kernel(RefOrbitView ref, BlaView<typename V::Delta::Bla> bla, DeepGrid grid,
                   PixelRect rect, unsigned max_iter, float* out, unsigned* counts,
                   float* warp_efficiency, unsigned* next_tile, unsigned tiles, SmSpan span) {
  using D = typename V::Delta;
  const unsigned long long t_start = clock64();
  const unsigned lane = threadIdx.x & 31;
  const unsigned across = (rect.width + kTileW - 1) / kTileW;
  // The tallies in shared memory, a row a warp written by its first lane: held in registers
  // they stayed live across the orbit's loop and took the double kernel to 48 registers, 10
  // warps a scheduler where 40 registers leave 12.
  __shared__ unsigned long long tally[kThreads / 32][kTallies];
  unsigned long long* sums = tally[threadIdx.x / 32];
  if (lane == 0)
    for (int k = 0; k < kTallies; ++k) sums[k] = 0;
  for (;;) {
    unsigned t = 0;
    if (lane == 0) t = atomicAdd(next_tile, 1u);
    t = __shfl_sync(0xffffffffu, t, 0);
    if (t >= tiles) break;
    const int x = static_cast<int>(t % across * kTileW + lane % kTileW);
    const int y = static_cast<int>(t / across * kTileH + lane / kTileW);
    PerturbResult r;
    const bool live = x < rect.width && y < rect.height;
    // Lockstep for perturb's every step; perturb-x's mantissas rebase far more often, and left
    // their loop together that way they ran up to a fifth slower (docs/measurements.md).
    if constexpr (!kApprox && std::is_same_v<D, DeltaDouble>) {
      r = perturb_orbit_lockstep<D>(
          ref, D::of(live ? pixel_dc(grid, rect.x0 + x, rect.y0 + y) : ComplexExp{}), max_iter,
          live);
      // A lane without a pixel stepped with the others, but counts none of the pixels' steps
      // (lane 0, which has the warp's rounds, always has one).
      if (!live) r.n = r.iterated = 0;
    } else if (live)
      r = perturb_orbit<D, kApprox>(ref, bla, D::of(pixel_dc(grid, rect.x0 + x, rect.y0 + y)),
                                    max_iter);
    if (live) {
      const std::size_t i = static_cast<std::size_t>(y) * rect.width + x;
      out[i * kFloatsPerPixel] = perturb_smooth(r);
      out[i * kFloatsPerPixel + 1] = 0.0f;
      if (counts) counts[i] = r.n;
    }
    const unsigned long long tile_iterated = warp_sum(r.iterated);
    const unsigned tile_slowest = warp_max(r.iterated);
    const unsigned long long tile_n = warp_sum(r.n), tile_rebases = warp_sum(r.rebases);
    if (lane == 0) {
      sums[kPixelIters] += tile_n;
      sums[kIterated] += tile_iterated;
      sums[kRebases] += tile_rebases;
      sums[kWarpIterated] += tile_slowest;
      sums[kRounds] += r.rounds;  // the warp's: lane 0 ran them all (perturb_lockstep.cuh)
      sums[kDoneRounds] += r.done_rounds;
      sums[kRebaseRounds] += r.rebase_rounds;
    }
    // The divergence view's figure for the tile, at its place in the whole image's numbering
    // (kernel_params.h): rect starts on an even row, so a 16x2 tile here is one there.
    if (warp_efficiency && lane == 0)
      warp_efficiency[warp_of(rect.x0 + static_cast<int>(t % across) * kTileW,
                              rect.y0 + static_cast<int>(t / across) * kTileH, grid.width)] =
          tile_slowest ? tile_iterated / (32.0f * tile_slowest) : 1.0f;
  }
  if (lane == 0) {
    const unsigned sm = sm_id();
    for (int k = 0; k < kTallies; ++k)
      if (sums[k]) atomicAdd(&span.extra[k * kSmSlots + sm], sums[k]);
    atomicMin(&span.first[sm], t_start);
    atomicMax(&span.last[sm], static_cast<unsigned long long>(clock64()));
  }
}

int current_device() {
  int d = 0;
  CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

}  // namespace

struct GpuPerturbation::Impl {
  MeasureKit kit{current_device(), SpanLayout{false, kTallies, 0}};
  DeviceBuffer<RefPoint> orbit;
  unsigned length = 0;
  unsigned offset[kMaxBlaLevels + 1] = {};
  int levels = 0;
  // What each format reads beside the orbit, copied from the caller's memory on its first frame:
  // a reference rendered in one format holds no other's tables on the GPU.
  RefOrbitView host_orbit;
  const BlaD* host_double = nullptr;
  const BlaX* host_extended = nullptr;
  const BlaF* host_float = nullptr;
  DeviceBuffer<RefPointF> orbit_float;
  DeviceBuffer<BlaD> bla_double;
  DeviceBuffer<BlaX> bla_extended;
  DeviceBuffer<BlaF> bla_float;
  DeviceBuffer<unsigned> next_tile{1};
  int sms = 0;

  unsigned entries() const { return levels > 0 ? offset[levels] : 0; }
};

namespace {

// `to` holding `n` of `from`'s elements, copied the first time (size 0 until then).
template <class T>
T* resident(DeviceBuffer<T>& to, const T* from, std::size_t n, const char* what) {
  if (to.size() == 0 && n > 0) {
    if (!from) throw std::invalid_argument(std::string("no ") + what + " to copy to the GPU");
    to = DeviceBuffer<T>(n);
    CUDA_CHECK(cudaMemcpy(to.get(), from, n * sizeof(T), cudaMemcpyHostToDevice));
  }
  return to.get();
}

}  // namespace

GpuPerturbation::GpuPerturbation() : impl_(std::make_unique<Impl>()) {
  CUDA_CHECK(cudaDeviceGetAttribute(&impl_->sms, cudaDevAttrMultiProcessorCount, current_device()));
}
GpuPerturbation::~GpuPerturbation() = default;

void GpuPerturbation::set_reference(RefOrbitView orbit, const BlaD* bla_double,
                                    const BlaX* bla_extended, const BlaF* bla_float,
                                    const unsigned* offset, int levels) {
  Impl& s = *impl_;
  // The old reference's memory first: two of them at once could not fit where one just does.
  s.orbit = DeviceBuffer<RefPoint>();
  s.orbit_float = DeviceBuffer<RefPointF>();
  s.bla_double = DeviceBuffer<BlaD>();
  s.bla_extended = DeviceBuffer<BlaX>();
  s.bla_float = DeviceBuffer<BlaF>();
  // Every format reads the orbit in double (the float one where Z is near 0).
  s.orbit = DeviceBuffer<RefPoint>(orbit.length);
  CUDA_CHECK(
      cudaMemcpy(s.orbit.get(), orbit.z, orbit.length * sizeof(RefPoint), cudaMemcpyHostToDevice));
  s.length = orbit.length;
  s.levels = std::min(levels, kMaxBlaLevels);
  for (int l = 0; l <= s.levels; ++l) s.offset[l] = offset[l];
  s.host_orbit = orbit;
  s.host_double = bla_double;
  s.host_extended = bla_extended;
  s.host_float = bla_float;
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
                                        bool approximate, float* warp_efficiency) {
  Impl& s = *impl_;
  const bool tables = approximate && bla_usable(s.levels);
  // The divergence view's tiles are the kernels' where the rect starts on one.
  if (warp_efficiency && (rect.y0 % kTileH != 0 || rect.x0 % kTileW != 0))
    throw std::invalid_argument("warp figures need a rect that starts on a 16x2 tile");
  const RefPointF* orbit_float =
      format == DeltaFormat::Float
          ? resident(s.orbit_float, s.host_orbit.zf, s.length, "orbit in float")
          : nullptr;
  RefOrbitView ref{s.orbit.get(), s.length, orbit_float};
  ref.tiny_at = s.host_orbit.tiny_at;
  ref.tiny_x = s.host_orbit.tiny_x;
  ref.tiny_y = s.host_orbit.tiny_y;
  ref.tiny_e = s.host_orbit.tiny_e;
  const unsigned across = (rect.width + kTileW - 1) / kTileW;
  const unsigned tiles = across * ((rect.height + kTileH - 1) / kTileH);
  // As many blocks as stay resident, fewer where the tiles would not keep them busy.
  auto launch = [&](auto variant, const auto* entries) {
    using V = decltype(variant);
    const auto bla = table_view(entries, s.offset, tables ? s.levels : 0);
    auto kernel = tables ? perturb_kernel<V, true> : perturb_kernel<V, false>;
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
    const unsigned warps = kThreads / 32;
    const unsigned blocks =
        std::max(1u, std::min<unsigned>(std::max(per_sm, 1) * s.sms, (tiles + warps - 1) / warps));
    CUDA_CHECK(cudaMemsetAsync(s.next_tile.get(), 0, sizeof(unsigned), s.kit.stream()));
    return s.kit.once([&](cudaStream_t stream, const SmSpan& span) {
      kernel<<<blocks, kThreads, 0, stream>>>(ref, bla, grid, rect, max_iter, out, counts,
                                              warp_efficiency, s.next_tile.get(), tiles, span);
    });
  };
  const std::size_t n = tables ? s.entries() : 0;
  const SpanReading reading =
      format == DeltaFormat::Double
          ? launch(variants::PerturbDouble{},
                   resident(s.bla_double, s.host_double, n, "table in double"))
      : format == DeltaFormat::Extended
          ? launch(variants::PerturbExtended{},
                   resident(s.bla_extended, s.host_extended, n, "table in the extended range"))
          : launch(variants::PerturbFloat{},
                   resident(s.bla_float, s.host_float, n, "table in float"));
  GpuPerturbStats st;
  st.kernel_ms = reading.ms;
  st.sm_cycles = reading.sm_cycles;
  st.sm_cycles_mean = reading.sm_cycles_mean;
  st.sms_used = reading.sms_used;
  st.approximated = tables;
  st.pixel_iters = reading.extras[kPixelIters];
  st.iterated = reading.extras[kIterated];
  st.rebases = reading.extras[kRebases];
  st.warp_iterated = reading.extras[kWarpIterated];
  st.rounds = reading.extras[kRounds];
  st.done_rounds = reading.extras[kDoneRounds];
  st.rebase_rounds = reading.extras[kRebaseRounds];
  return st;
}

}  // namespace mp
