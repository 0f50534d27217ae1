#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "launch_grid.cuh"
#include "launch_queue.cuh"
#include "launch_refill.cuh"
#include "launch_rows.cuh"
#include "render_kernel.cuh"
#include "tile_order.cuh"

// The render kernel, one template instance per variant, over the launch shape its variant names
// (launch_*.cuh), the tile ordering's kernels, and the host's side of their launches.
namespace mp {
namespace {

using namespace render_shapes;

// The register cap (V::kRegCap) applies on sm_90 only, where it was measured; other
// architectures keep the compiler's own choice, which fits there without spilling.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MANDELPIPE_RENDER_REGS(V) __maxnreg__(V::kRegCap)
#else
#define MANDELPIPE_RENDER_REGS(V) __launch_bounds__(kRenderThreads)
#endif
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_shape(const RenderLaunch& a) {
  if constexpr (V::kShape == variants::Shape::Grid)
    render_grid<V, kRecord, kResume>(a);
  else if constexpr (V::kShape == variants::Shape::Rows)
    render_rows<V, kRecord, kResume>(a);
  else if constexpr (V::kShape == variants::Shape::Refill)
    render_refill<V, kRecord, kResume>(a);
  else
    render_warps<V, kRecord, kResume>(a);
}
template <class V, bool kRecord>
__global__ void MANDELPIPE_RENDER_REGS(V) render_kernel(RenderLaunch a) {
  render_shape<V, kRecord, false>(a);
}
#undef MANDELPIPE_RENDER_REGS
// A frame cut by steps: the same shapes and step loops, resumable, recording what the launch asks
// for. The compiler's own register choice: the cap was measured for the render kernel.
template <class V>
__global__ void __launch_bounds__(kRenderThreads) resumable_kernel(RenderLaunch a) {
  render_shape<V, true, true>(a);
}

template <class V, bool kRecord, bool kResume = false>
RenderStart prepare(const RenderLaunch& args) {
  RenderStart r;
  if (args.grid.width <= 0 || args.grid.height <= 0) return r;
  // The queue's packed tiles and the 32-bit pixel index set the largest image.
  if (args.grid.width > kMaxTileRefSize || args.grid.height > kMaxTileRefSize ||
      static_cast<unsigned long long>(args.grid.width) * args.grid.height >= 1ull << 32)
    throw std::invalid_argument("render: " + std::to_string(args.grid.width) + "x" +
                                std::to_string(args.grid.height) +
                                " pixels is more than the kernel can address");
  const unsigned tiles = static_cast<unsigned>(warp_count(args.grid.width, args.grid.height));
  const unsigned end = std::min(args.tile_end, tiles), begin = std::min(args.tile_begin, end);
  if (begin % kWarpsPerBlock != 0 || end % kWarpsPerBlock != 0)
    throw std::invalid_argument("render: tiles " + std::to_string(args.tile_begin) + ".." +
                                std::to_string(args.tile_end) + " are not whole 16x16 blocks");
  if (begin == end) return r;
  if constexpr (kResume) {
    r.kernel = resumable_kernel<V>;
  } else {
    r.kernel = render_kernel<V, kRecord>;
  }
  r.args = args;
  r.args.tile_begin = begin;
  r.args.tile_end = end;
  r.args.blocks_across = blocks_across(args.grid.width);
  r.recording = kRecord;
  if constexpr (V::kShape == variants::Shape::Grid) {
    r.blocks = static_cast<int>((end - begin) / kWarpsPerBlock);
    r.args.tile_cost = nullptr;
    return r;
  }
  if constexpr (V::kShape == variants::Shape::Rows) {
    const unsigned across = r.args.blocks_across;
    const unsigned first_row = begin / kWarpsPerBlock / across,
                   rows_of_blocks = (end / kWarpsPerBlock - 1) / across + 1 - first_row;
    const unsigned row_end =
        std::min(static_cast<unsigned>(args.grid.height), (first_row + rows_of_blocks) * kBlockH);
    r.args.row_base = first_row * kBlockH;
    if (rows_of_blocks * kBlockH > static_cast<unsigned>(kMaxTableRows))
      throw std::invalid_argument(std::string("render: ") + V::kName + " takes at most " +
                                  std::to_string(kMaxTableRows) + " rows in a launch");
    r.row_cy.resize(row_end - r.args.row_base);
    for (unsigned y = 0; y < r.row_cy.size(); ++y)
      r.row_cy[y] =
          pixel_coord<float>(static_cast<int>(r.args.row_base + y), args.grid.dy, args.grid.y0);
    r.blocks = (args.grid.width + kRowsBlockW - 1) / kRowsBlockW;
    r.block_rows = static_cast<int>(rows_of_blocks * kBlockH / 2);
    r.args.tile_cost = nullptr;
    return r;
  }
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, r.kernel, kRenderThreads, 0));
  // A range smaller than the GPU holds gets a block per 8 of its tiles: the spare blocks would
  // crowd the working ones onto fewer SMs.
  r.blocks = std::min(std::max(1, blocks_per_sm) * sms,
                      static_cast<int>((end - begin + kWarpsPerBlock - 1) / kWarpsPerBlock));
  if constexpr (V::kShape == variants::Shape::Refill) {
    r.args.tile_cost = nullptr;  // the tiles go in numbering order, each lane at its own pace
    return r;
  }
  r.args.senior_blocks = sms * kSeniorBlocksPerSm;
  r.queue = true;
  return r;
}

// The ordering's two passes, one thread per tile: count the tiles of each cost bucket, then
// give each tile its place. Within a bucket the tiles are in no set order (blocks claim their

}  // namespace

void launch_tile_order(const OrderLaunch& args, cudaStream_t stream) {
  if (args.tiles == 0) return;
  // At least one block per SM (the spare ones only stamp sm_first), so that every SM's span
  // starts with the ordering, not just the spans of the SMs that had tiles to sort.
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned blocks = std::max<unsigned>((args.tiles + kOrderThreads - 1) / kOrderThreads, sms);
  OrderLaunch a = args;
  if (a.by_cost) {
    int threads_per_sm = 0;
    CUDA_CHECK(
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    a.tail = std::min(a.tiles / kTailShare,
                      static_cast<unsigned>(kTailTilesPerWarp * sms * (threads_per_sm / 32)));
    count_buckets<<<blocks, kOrderThreads, 0, stream>>>(a);
    CUDA_CHECK(cudaGetLastError());
  }
  order_tiles<<<blocks, kOrderThreads, 0, stream>>>(a);
  CUDA_CHECK(cudaGetLastError());
}

// The recording kernel where the frame records anything (tile costs, counts, efficiencies).
template <class V>
RenderStart prepare_either(const RenderLaunch& args) {
  if (args.split.slots) {  // a frame cut by steps records no tile costs (its orbits are cut too)
    RenderLaunch a = args;
    a.tile_cost = nullptr;
    return prepare<V, true, true>(a);
  }
  // Only the queue orders tiles by cost: the other shapes record nothing a frame did not ask for.
  const bool costs = args.tile_cost && V::kShape == variants::Shape::Queue;
  if (costs || args.counts || args.warp_efficiency) return prepare<V, true>(args);
  return prepare<V, false>(args);
}

RenderStart prepare_render(VariantId variant, const RenderLaunch& args) {
  return with_plain_variant(variant, [&](auto v) { return prepare_either<decltype(v)>(args); });
}

template <class V>
int resident_blocks(bool resumable) {
  int blocks = 0;
  if (resumable)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, resumable_kernel<V>,
                                                             kRenderThreads, 0));
  else
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, render_kernel<V, false>,
                                                             kRenderThreads, 0));
  return std::max(1, blocks);
}

int resident_tiles_per_sm(VariantId variant, bool resumable) {
  return with_plain_variant(variant, [&](auto v) {
    using V = decltype(v);
    // A block of Shape::Rows holds 256 pixels of each of two rows: 16 tiles' worth.
    const int tiles = V::kShape == variants::Shape::Rows ? 2 * kRowsBlockW / 32 : kWarpsPerBlock;
    return resident_blocks<V>(resumable) * tiles;
  });
}

RenderStart prepare_sin_balance(int sines, const RenderLaunch& args) {
  if (args.counts || args.warp_efficiency || args.split.slots)
    throw std::invalid_argument(
        "prepare_sin_balance: the sweep renders whole frames with no per-pixel outputs");
  switch (sines) {
    case 1: return prepare_either<variants::SinBalance<1>>(args);
    case 2: return prepare_either<variants::SinBalance<2>>(args);
    case 3: return prepare_either<variants::SinBalance<3>>(args);
    case 4: return prepare_either<variants::SinBalance<4>>(args);
    default: throw std::invalid_argument("prepare_sin_balance: sines must be 1..4");
  }
}

void start_render(const RenderStart& start, cudaStream_t stream) {
  if (!start.kernel) return;
  // The table in constant memory is the module's, one for every renderer: a launch puts its rows
  // there on its own stream, just before it, and renders are waited for (GpuRenderer), so no
  // launch reads another's rows. The copy is part of the launch's work and of its time.
  if (!start.row_cy.empty())
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_cy, start.row_cy.data(),
                                       start.row_cy.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
  start.kernel<<<dim3(start.blocks, start.block_rows), kRenderThreads, 0, stream>>>(start.args);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
