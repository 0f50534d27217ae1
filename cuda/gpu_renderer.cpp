#include "gpu_renderer.h"

#include <algorithm>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "render_kernel.cuh"

namespace mp {

DeviceProbe probe_cuda_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls report their own
    if (e == cudaErrorInsufficientDriver)
      return {std::nullopt, "no usable NVIDIA driver (none installed, or older than this CUDA)"};
    if (e == cudaErrorNoDevice) return {std::nullopt, "no CUDA GPU"};
    return {std::nullopt, std::string("no CUDA device: ") + cudaGetErrorString(e)};
  }
  if (count == 0) return {std::nullopt, "no CUDA device: the driver reports none"};
  DeviceInfo d;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  CUDA_CHECK(cudaDeviceGetAttribute(&d.peak_clock_khz, cudaDevAttrClockRate, 0));
  if (d.cc_major * 10 + d.cc_minor < 75)
    return {std::nullopt, d.name + " is sm_" + std::to_string(d.cc_major * 10 + d.cc_minor) +
                              "; mandelpipe's kernels need sm_75 or newer"};
  return {d, ""};
}

struct GpuRenderer::Impl {
  DeviceInfo device;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  // Layout, kSmSlots entries each: sm_first, sm_last, sm_pixel_iters, sm_warp_iters, indexed
  // by %smid, which may exceed the SM count (it is bounded by %nsmid, not the count); then
  // the tile queue's two counters of units (the rest, the costly), kQueueGap entries (256
  // bytes) apart, so that the atomics on one do not wait behind those on the other
  // (docs/measurements.md, the queue's counters).
  static constexpr int kSmSlots = 1024;
  static constexpr int kQueueGap = 32;
  DeviceBuffer<unsigned long long> stats;
  unsigned long long* host_stats = nullptr;  // pinned mirror of `stats`

  // The tile order: the tiles in queue order and each one's cost in the last frame; then the
  // ordering's per-bucket counters (tiles, places taken).
  TileOrder tile_order = TileOrder::CostliestFirst;
  DeviceBuffer<unsigned> order, tile_cost;
  DeviceBuffer<TilePlan> plan{1};
  DeviceBuffer<unsigned> order_counters{2 * kCostBuckets};
  // Order and plan are the numbering's, for this many tiles (or 0) in rows this many blocks wide.
  unsigned identity_tiles = 0;
  int identity_blocks_across = 0;
  // order and plan are by cost, from the costs `order_kernel` left on this grid; the costs of
  // the last frame are `costs_kernel`'s. The same kernel on the same view leaves the same costs.
  bool order_by_cost = false;
  int order_kernel = 0, costs_kernel = 0;
  bool costs_valid = false;     // tile_cost holds the costs of:
  PixelGrid costs_grid;         // ...this grid
  unsigned costs_max_iter = 0;  // ...and this iteration limit

  explicit Impl(const DeviceInfo& d) : device(d), stats(4 * kSmSlots + 2 * kQueueGap) {
    CUDA_CHECK(cudaSetDevice(d.index));
    // A blocking stream: it waits for work on the legacy stream, where interop maps and
    // unmaps GL resources, so a kernel never writes a buffer GL is still reading.
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_stats),
                              stats.size() * sizeof(unsigned long long)));
  }
  ~Impl() {
    cudaFreeHost(host_stats);
    cudaEventDestroy(stop);
    cudaEventDestroy(start);
    cudaStreamDestroy(stream);
  }
};

GpuRenderer::GpuRenderer(const DeviceInfo& device) : impl_(std::make_unique<Impl>(device)) {}
GpuRenderer::~GpuRenderer() = default;

const DeviceInfo& GpuRenderer::device() const {
  return impl_->device;
}

void GpuRenderer::set_tile_order(TileOrder order) {
  impl_->tile_order = order;
}
void GpuRenderer::forget_view() {
  impl_->costs_valid = false;
}
TileOrder GpuRenderer::tile_order() const {
  return impl_->tile_order;
}

namespace {
bool same_grid(const PixelGrid& a, const PixelGrid& b) {
  return a.width == b.width && a.height == b.height && a.x0 == b.x0 && a.y0 == b.y0 &&
         a.dx == b.dx && a.dy == b.dy;
}
}  // namespace

GpuFrameStats GpuRenderer::render(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                                  float* out, unsigned* counts, float* warp_efficiency) {
  return measure(static_cast<int>(variant), grid, max_iter, out, counts, warp_efficiency,
                 [variant](const RenderLaunch& a) { return prepare_render(variant, a); });
}

GpuFrameStats GpuRenderer::render_sin_balance(int sines, const PixelGrid& grid, unsigned max_iter,
                                              float* out) {
  return measure(-sines, grid, max_iter, out, nullptr, nullptr,
                 [sines](const RenderLaunch& a) { return prepare_sin_balance(sines, a); });
}

template <class Prepare>
GpuFrameStats GpuRenderer::measure(int kernel, const PixelGrid& grid, unsigned max_iter, float* out,
                                   unsigned* counts, float* warp_efficiency, Prepare&& prepare) {
  Impl& m = *impl_;
  const int slots = Impl::kSmSlots;
  unsigned long long* s = m.stats.get();
  CUDA_CHECK(cudaMemsetAsync(s, 0xff, slots * sizeof(unsigned long long), m.stream));
  CUDA_CHECK(cudaMemsetAsync(
      s + slots, 0, (3 * slots + 2 * Impl::kQueueGap) * sizeof(unsigned long long), m.stream));

  const unsigned tiles = static_cast<unsigned>(warp_count(grid.width, grid.height));
  if (m.order.size() < tiles) {
    m.order = DeviceBuffer<unsigned>(tiles);
    m.tile_cost = DeviceBuffer<unsigned>(tiles);
    m.identity_tiles = 0;
    m.costs_valid = false;
    m.order_by_cost = false;
  }
  const bool by_cost = tiles > 0 && m.tile_order == TileOrder::CostliestFirst && m.costs_valid &&
                       same_grid(grid, m.costs_grid) && max_iter == m.costs_max_iter;
  RenderLaunch args;
  args.grid = grid;
  args.max_iter = max_iter;
  args.out = out;
  args.counts = counts;
  args.sm_first = s;
  args.sm_last = s + slots;
  args.sm_pixel_iters = s + 2 * slots;
  args.sm_warp_iters = s + 3 * slots;
  args.warp_efficiency = warp_efficiency;
  args.next_unit = reinterpret_cast<unsigned*>(s + 4 * slots);
  args.next_costly_unit = reinterpret_cast<unsigned*>(s + 4 * slots + Impl::kQueueGap);
  args.order = m.order.get();
  args.plan = m.plan.get();
  // The kernels are deterministic: where tile_cost holds this kernel's costs on this view, the
  // frame runs the kernel that does not write them again.
  const bool costs_current = m.costs_valid && same_grid(grid, m.costs_grid) &&
                             max_iter == m.costs_max_iter && m.costs_kernel == kernel;
  args.tile_cost = costs_current ? nullptr : m.tile_cost.get();
  // An order made from the same costs as the last frame's is taken again.
  const bool order_current = m.order_by_cost && m.order_kernel == m.costs_kernel;
  const RenderStart start = prepare(args);
  // Kernels of other shapes than the queue need no order, and leave the order as it was.
  const bool make_order =
      start.queue && (by_cost ? !order_current
                              : m.identity_tiles != tiles ||
                                    m.identity_blocks_across != blocks_across(grid.width));
  if (make_order)
    CUDA_CHECK(cudaMemsetAsync(m.order_counters.get(), 0,
                               m.order_counters.size() * sizeof(unsigned), m.stream));
  // The ordering is part of the frame: inside the events, and in the SM spans.
  CUDA_CHECK(cudaEventRecord(m.start, m.stream));
  if (make_order) {
    OrderLaunch o;
    o.tiles = tiles;
    o.width = grid.width;
    o.by_cost = by_cost;
    o.tile_cost = m.tile_cost.get();
    o.histogram = m.order_counters.get();
    o.fill = m.order_counters.get() + kCostBuckets;
    o.order = m.order.get();
    o.plan = m.plan.get();
    o.sm_first = args.sm_first;
    launch_tile_order(o, m.stream);
    m.identity_tiles = by_cost ? 0 : tiles;
    m.identity_blocks_across = blocks_across(grid.width);
    m.order_kernel = m.costs_kernel;
  }
  if (start.queue) m.order_by_cost = by_cost;
  start_render(start, m.stream);
  CUDA_CHECK(cudaEventRecord(m.stop, m.stream));
  CUDA_CHECK(cudaMemcpyAsync(m.host_stats, s, 4 * slots * sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, m.stream));
  CUDA_CHECK(cudaStreamSynchronize(m.stream));

  GpuFrameStats r;
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
  r.kernel_ms = ms;
  for (int i = 0; i < slots; ++i) {
    const unsigned long long first = m.host_stats[i], last = m.host_stats[slots + i];
    if (last == 0) continue;  // no block ran on this SM
    ++r.sms_used;
    r.sm_cycles = std::max(r.sm_cycles, last - first);
    r.sm_cycles_mean += static_cast<double>(last - first);
    r.pixel_iters += m.host_stats[2 * slots + i];
    r.warp_iters += m.host_stats[3 * slots + i];
  }
  if (r.sms_used > 0) r.sm_cycles_mean /= r.sms_used;
  r.by_cost = start.queue && by_cost;
  r.recording = start.recording;
  if (start.args.tile_cost) {  // the frame left its tile costs
    m.costs_valid = true;
    m.costs_kernel = kernel;
    m.costs_grid = grid;
    m.costs_max_iter = max_iter;
  }
  return r;
}

}  // namespace mp
