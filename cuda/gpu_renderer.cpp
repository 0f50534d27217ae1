#include "gpu_renderer.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "measure_kit.h"
#include "render_kernel.cuh"
#include "sm_arch.h"

namespace mp {

namespace {

// How many devices the runtime numbers, or why it numbers none.
int device_count(std::string& reason) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls report their own
    reason = e == cudaErrorInsufficientDriver
                 ? "no usable NVIDIA driver (none installed, or older than this CUDA)"
             : e == cudaErrorNoDevice ? "no CUDA GPU"
                                      : std::string("no CUDA device: ") + cudaGetErrorString(e);
    return 0;
  }
  if (count == 0) reason = "no CUDA device: the driver reports none";
  return count;
}

// Device `index`, or why mandelpipe's kernels cannot run on it.
DeviceProbe probe_index(int index) {
  DeviceInfo d;
  d.index = index;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  CUDA_CHECK(cudaDeviceGetAttribute(&d.peak_clock_khz, cudaDevAttrClockRate, index));
  if (sm_arch(d.cc_major, d.cc_minor) < 75)
    return {std::nullopt, d.name + " is sm_" + std::to_string(sm_arch(d.cc_major, d.cc_minor)) +
                              "; mandelpipe's kernels need sm_75 or newer"};
  return {d, ""};
}

}  // namespace

DeviceProbe probe_cuda_device() {
  std::string reason;
  if (device_count(reason) == 0) return {std::nullopt, reason};
  return probe_index(0);
}

DeviceCensus probe_cuda_devices() {
  DeviceCensus c;
  c.count = device_count(c.reason);
  for (int i = 0; i < c.count; ++i) {
    DeviceProbe p = probe_index(i);
    if (p.device)
      c.usable.push_back(*p.device);
    else
      c.reason +=
          (c.reason.empty() ? "" : "; ") + ("device " + std::to_string(i) + ": ") + p.reason;
  }
  return c;
}

void start_contexts(const std::vector<DeviceInfo>& devices) {
  std::vector<std::thread> threads;
  for (const DeviceInfo& d : devices)
    threads.emplace_back([index = d.index] {
      if (cudaSetDevice(index) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
        cudaGetLastError();
    });
  for (std::thread& t : threads) t.join();
}

void release_contexts(const std::vector<DeviceInfo>& devices) {
  std::vector<std::thread> threads;
  for (const DeviceInfo& d : devices)
    threads.emplace_back([index = d.index] {
      if (cudaSetDevice(index) != cudaSuccess || cudaDeviceReset() != cudaSuccess)
        cudaGetLastError();
    });
  for (std::thread& t : threads) t.join();
}

struct GpuRenderer::Impl {
  DeviceInfo device;
  // The measuring kit's spans (sm_spans.h) with four extras, sm_pixel_iters, sm_warp_iters and,
  // for a frame cut by steps, sm_finished and sm_pending;
  // then, as scratch, the tile queue's two counters of units (the rest, the costly),
  // kQueueGap entries (256 bytes) apart, so that the atomics on one do not wait behind those
  // on the other (docs/measurements.md, the queue's counters), and Shape::Refill's counters.
  // Declared before the buffers below: it chooses the device.
  static constexpr int kQueueGap = 32;
  static constexpr int kRefillWords = kRefillCounters * kRefillCounterStride / 2;
  MeasureKit kit;

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
  bool costs_valid = false;     // tile_cost holds all the costs of:
  PixelGrid costs_grid;         // ...this grid
  unsigned costs_max_iter = 0;  // ...and this iteration limit
  unsigned costs_recorded = 0;  // tiles [0, this) of them are in, from a frame's first ranges
  // The queue's order and plan are for tiles [order_begin, order_end).
  unsigned order_begin = 0, order_end = 0;

  explicit Impl(const DeviceInfo& d)
      : device(d), kit(d.index, SpanLayout{false, 4, 2 * kQueueGap + kRefillWords}) {}
};

GpuRenderer::GpuRenderer(const DeviceInfo& device) : impl_(std::make_unique<Impl>(device)) {}
GpuRenderer::~GpuRenderer() = default;

const DeviceInfo& GpuRenderer::device() const {
  return impl_->device;
}

void GpuRenderer::bind_thread() const {
  CUDA_CHECK(cudaSetDevice(impl_->device.index));
}

void GpuRenderer::set_tile_order(TileOrder order) {
  impl_->tile_order = order;
}
void GpuRenderer::forget_view() {
  impl_->costs_valid = false;
  impl_->costs_recorded = 0;
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

GpuFrameStats& GpuFrameStats::operator+=(const GpuFrameStats& s) {
  by_cost = launches == 0 ? s.by_cost : by_cost && s.by_cost;
  kernel_ms += s.kernel_ms;
  sm_cycles += s.sm_cycles;
  sm_cycles_mean += s.sm_cycles_mean;
  sms_used = std::max(sms_used, s.sms_used);
  warps_launched += s.warps_launched;
  launches += s.launches;
  passes = std::max(passes, s.passes);
  longest_launch_ms = std::max(longest_launch_ms, s.longest_launch_ms);
  pixel_iters += s.pixel_iters;
  warp_iters += s.warp_iters;
  recording = recording || s.recording;
  resumable = resumable || s.resumable;
  pixels_finished += s.pixels_finished;
  pixels_pending += s.pixels_pending;
  const bool rounds = perturb_rounds >= 0 && s.perturb_rounds >= 0;
  perturb_rounds = rounds ? perturb_rounds + s.perturb_rounds : -1;
  perturb_done_rounds = rounds ? perturb_done_rounds + s.perturb_done_rounds : -1;
  perturb_rebase_rounds = rounds ? perturb_rebase_rounds + s.perturb_rebase_rounds : -1;
  return *this;
}

GpuFrameStats GpuRenderer::render(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                                  float* out, unsigned* counts, float* warp_efficiency) {
  return render_tiles(variant, grid, max_iter, 0, ~0u, out, counts, warp_efficiency, {});
}

GpuFrameStats GpuRenderer::render_tiles(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                                        unsigned tile_begin, unsigned tile_end, float* out,
                                        unsigned* counts, float* warp_efficiency,
                                        const OrbitSplit& split) {
  return launch_timed(static_cast<int>(variant), grid, max_iter, tile_begin, tile_end, out, counts,
                      warp_efficiency, split,
                      [variant](const RenderLaunch& a) { return prepare_render(variant, a); });
}

unsigned GpuRenderer::resident_tiles(VariantId variant, bool resumable) const {
  return static_cast<unsigned>(resident_tiles_per_sm(variant, resumable) * impl_->device.sm_count);
}

GpuFrameStats GpuRenderer::render_sin_balance(int sines, const PixelGrid& grid, unsigned max_iter,
                                              float* out) {
  return launch_timed(-sines, grid, max_iter, 0, ~0u, out, nullptr, nullptr, {},
                      [sines](const RenderLaunch& a) { return prepare_sin_balance(sines, a); });
}

template <class Prepare>
GpuFrameStats GpuRenderer::launch_timed(int kernel, const PixelGrid& grid, unsigned max_iter,
                                        unsigned tile_begin, unsigned tile_end, float* out,
                                        unsigned* counts, float* warp_efficiency,
                                        const OrbitSplit& split, Prepare&& prepare) {
  Impl& m = *impl_;
  const SmSpan& span = m.kit.span();
  m.kit.clear();

  const unsigned all_tiles = static_cast<unsigned>(warp_count(grid.width, grid.height));
  const unsigned end = std::min(tile_end, all_tiles), begin = std::min(tile_begin, end);
  const unsigned tiles = end - begin;
  if (m.order.size() < all_tiles) {
    m.order = DeviceBuffer<unsigned>(all_tiles);
    m.tile_cost = DeviceBuffer<unsigned>(all_tiles);
    m.identity_tiles = 0;
    m.costs_valid = false;
    m.costs_recorded = 0;
    m.order_by_cost = false;
  }
  // Only a whole frame goes by cost: within a range the queue's seniors and tail, made for a
  // whole frame, had warps run two costly tiles in turn (docs/architecture.md, one frame).
  const bool by_cost = tiles > 0 && tiles == all_tiles &&
                       m.tile_order == TileOrder::CostliestFirst && m.costs_valid &&
                       same_grid(grid, m.costs_grid) && max_iter == m.costs_max_iter;
  RenderLaunch args;
  args.grid = grid;
  args.max_iter = max_iter;
  args.out = out;
  args.counts = counts;
  args.sm_first = span.first;
  args.sm_last = span.last;
  args.sm_pixel_iters = span.extra;
  args.sm_warp_iters = span.extra + kSmSlots;
  args.warp_efficiency = warp_efficiency;
  args.split = split;
  args.sm_finished = span.extra + 2 * kSmSlots;
  args.sm_pending = span.extra + 3 * kSmSlots;
  args.next_unit = reinterpret_cast<unsigned*>(span.scratch);
  args.next_costly_unit = reinterpret_cast<unsigned*>(span.scratch + Impl::kQueueGap);
  args.refill_units = reinterpret_cast<unsigned*>(span.scratch + 2 * Impl::kQueueGap);
  args.order = m.order.get();
  args.plan = m.plan.get();
  args.tile_begin = tile_begin;
  args.tile_end = tile_end;
  // The kernels are deterministic: where tile_cost holds this kernel's costs on this view, the
  // frame runs the kernel that does not write them again.
  const bool costs_current = m.costs_valid && same_grid(grid, m.costs_grid) &&
                             max_iter == m.costs_max_iter && m.costs_kernel == kernel;
  args.tile_cost = costs_current ? nullptr : m.tile_cost.get();
  // An order made from the same costs as the last frame's, for the same tiles, is taken again.
  const bool same_range = m.order_begin == begin && m.order_end == end;
  const bool order_current = m.order_by_cost && m.order_kernel == m.costs_kernel && same_range;
  const RenderStart start = prepare(args);
  // Kernels of other shapes than the queue need no order, and leave the order as it was.
  const bool make_order =
      start.queue && (by_cost ? !order_current
                              : m.identity_tiles != tiles || !same_range ||
                                    m.identity_blocks_across != blocks_across(grid.width));
  if (make_order)
    CUDA_CHECK(cudaMemsetAsync(m.order_counters.get(), 0,
                               m.order_counters.size() * sizeof(unsigned), m.kit.stream()));
  // The ordering is part of the frame: inside the events, and in the SM spans.
  m.kit.start();
  if (make_order) {
    OrderLaunch o;
    o.first = begin;
    o.tiles = tiles;
    o.width = grid.width;
    o.by_cost = by_cost;
    o.tile_cost = m.tile_cost.get();
    o.histogram = m.order_counters.get();
    o.fill = m.order_counters.get() + kCostBuckets;
    o.order = m.order.get();
    o.plan = m.plan.get();
    o.sm_first = args.sm_first;
    launch_tile_order(o, m.kit.stream());
    m.identity_tiles = by_cost ? 0 : tiles;
    m.identity_blocks_across = blocks_across(grid.width);
    m.order_kernel = m.costs_kernel;
    m.order_begin = begin;
    m.order_end = end;
  }
  if (start.queue) m.order_by_cost = by_cost;
  start_render(start, m.kit.stream());
  m.kit.stop();
  const SpanReading reading = m.kit.read();

  GpuFrameStats r;
  r.kernel_ms = r.longest_launch_ms = reading.ms;
  r.launches = 1;
  r.sm_cycles = reading.sm_cycles;
  r.sm_cycles_mean = reading.sm_cycles_mean;
  r.sms_used = reading.sms_used;
  r.pixel_iters = reading.extras[0];
  r.warp_iters = reading.extras[1];
  r.pixels_finished = reading.extras[2];
  r.pixels_pending = reading.extras[3];
  r.by_cost = start.queue && by_cost;
  r.recording = start.recording;
  r.resumable = split.slots != nullptr;
  // A block is 256 threads, as many warps as a 16x16 block has tiles.
  r.warps_launched = static_cast<double>(start.blocks) * start.block_rows * kWarpsPerBlock;
  if (start.args.tile_cost) {  // the launch left its tiles' costs: all of them once ranges meet
    const bool extends = begin == m.costs_recorded && m.costs_kernel == kernel &&
                         same_grid(grid, m.costs_grid) && max_iter == m.costs_max_iter;
    m.costs_recorded = begin == 0 || extends ? end : 0;
    m.costs_valid = m.costs_recorded == all_tiles;
    m.costs_kernel = kernel;
    m.costs_grid = grid;
    m.costs_max_iter = max_iter;
  }
  return r;
}

}  // namespace mp
