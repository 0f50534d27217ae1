// A frame rendered as several launches over ranges of tiles (the window's bounded launches)
// against the same frame in one launch: bit for bit, for each launch shape. Needs a
// CUDA GPU; skips with the reason elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "gpu_renderer.h"
#include "gpu_sliced_frame.h"
#include "model/variant_table.h"
#include "model/view.h"
#include "orbit_budgets.h"
#include "reproject.h"

namespace mp {
namespace {

// View C at a limit where inside pixels cost thousands of steps beside escaping ones, and a size
// with partial blocks at the edges: 63x38 blocks, 19152 tiles, over two waves of the queue's
// persistent warps on an H100 (8448), so that ranges below and past a wave both occur.
const View kView = view_at(-0.75, 0.0, 0.05, 4096);
constexpr int kW = 1003, kH = 601;

// Device outputs, poisoned so that a pixel or tile no launch wrote shows.
struct Outputs {
  DeviceBuffer<float> out{static_cast<std::size_t>(kW) * kH * kFloatsPerPixel};
  DeviceBuffer<unsigned> counts{static_cast<std::size_t>(kW) * kH};
  DeviceBuffer<float> warps{static_cast<std::size_t>(warp_count(kW, kH))};
  Outputs() {
    CUDA_CHECK(cudaMemset(out.get(), 0xff, out.size() * sizeof(float)));
    CUDA_CHECK(cudaMemset(counts.get(), 0xff, counts.size() * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(warps.get(), 0xff, warps.size() * sizeof(float)));
  }
};

struct Host {
  std::vector<float> data, warps;
  std::vector<unsigned> counts;
};
template <class T>
std::vector<T> download(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  CUDA_CHECK(cudaMemcpy(h.data(), d.get(), d.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
Host download(const Outputs& o) {
  return {download(o.out), download(o.warps), download(o.counts)};
}
// Bit for bit: a NaN a kernel wrote (or the poison no launch overwrote) is equal only to itself.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Where the frame is cut: whole blocks, ranges from one block to most of a wave, none a multiple
// of one.
const std::vector<unsigned> kCuts = {0, 8, 1064, 9000, 9008, 19152};

// Shape::Rows, whose warps are 32 pixels of a row (two tiles side by side): the tiles whose warp
// a cut splits (a cut at an odd 16x16 block), and the tiles below the image, which no warp writes.
bool split_by_a_cut(std::size_t tile) {
  const unsigned block = static_cast<unsigned>(tile) / kWarpsPerBlock, across = blocks_across(kW);
  const unsigned partner = block % across % 2 ? block : block + 1;
  return partner % across != 0 &&
         std::find(kCuts.begin(), kCuts.end(), partner * kWarpsPerBlock) != kCuts.end();
}
bool below_the_image(std::size_t tile) {
  const unsigned block = static_cast<unsigned>(tile) / kWarpsPerBlock;
  return block / blocks_across(kW) * kBlockH + tile % kWarpsPerBlock * 2 >= kH;
}
// Its divergence figures: those of the one-launch frame wherever a warp ran in one launch, else
// (in two) a share of lanes stepping; poison only below the image.
void expect_row_warps(const std::vector<float>& one, const std::vector<float>& cut) {
  ASSERT_EQ(one.size(), cut.size());
  int compared = 0;
  for (std::size_t t = 0; t < cut.size(); ++t) {
    if (below_the_image(t)) {
      ASSERT_TRUE(std::isnan(cut[t])) << "tile " << t;
    } else if (split_by_a_cut(t)) {
      ASSERT_GT(cut[t], 0.0f) << "tile " << t;
      ASSERT_LE(cut[t], 1.0f) << "tile " << t;
    } else {
      ASSERT_EQ(std::memcmp(&one[t], &cut[t], sizeof(float)), 0)
          << "tile " << t << ": " << one[t] << " in one launch, " << cut[t] << " in ranges";
      ++compared;
    }
  }
  EXPECT_GT(compared, static_cast<int>(cut.size()) * 9 / 10);
}

// The steps a frame ran, in one launch and in several: the same, except for a variant that stops
// periodic orbits, whose cycle finding starts over in each launch that cuts an orbit by steps and
// so meets a repeat sooner or later than in one launch; it runs no more than the counts hold.
void expect_same_steps(VariantId v, unsigned long long cut, unsigned long long one,
                       const std::vector<unsigned>& counts) {
  if (variant_info(v).stops_cycles) {
    EXPECT_GT(cut, 0u) << variant_info(v).name;
    EXPECT_LE(cut, std::accumulate(counts.begin(), counts.end(), 0ull)) << variant_info(v).name;
  } else {
    EXPECT_EQ(cut, one) << variant_info(v).name;
  }
}
// The steps the CPU runs for every pixel of `grid` in launches of `budget` steps, as a frame cut by
// steps runs them.
unsigned long long steps_in_budgets(VariantId id, const PixelGrid& grid, unsigned max_iter,
                                    unsigned budget) {
  unsigned long long steps = 0;
  with_plain_variant(id, [&](auto variant) {
    using V = decltype(variant);
    using R = typename V::Real;
    for (int y = 0; y < grid.height; ++y)
      for (int x = 0; x < grid.width; ++x) {
        const R cx = pixel_coord<R>(x, grid.dx, grid.x0), cy = pixel_coord<R>(y, grid.dy, grid.y0);
        Orbit<R> o;
        run_in_budgets<V>(cx, cy, o, max_iter, budget);
        steps += o.n;
      }
  });
  return steps;
}

class GpuRangesTest : public CudaDeviceTest<::testing::TestWithParam<VariantId>> {};

TEST_P(GpuRangesTest, AFrameInRangesEqualsTheFrameInOneLaunch) {
  const VariantId v = GetParam();
  const PixelGrid grid = pixel_grid(kView, kW, kH);
  ASSERT_EQ(warp_count(kW, kH), kCuts.back());
  // Each frame on a renderer of its own: nothing known of the view beforehand.
  GpuRenderer one_gpu(device_), ranges_gpu(device_);
  Outputs one, ranged;
  const GpuFrameStats whole =
      one_gpu.render(v, grid, kView.max_iter, one.out.get(), one.counts.get(), one.warps.get());
  GpuFrameStats sum;
  for (std::size_t i = 0; i + 1 < kCuts.size(); ++i)
    sum += ranges_gpu.render_tiles(v, grid, kView.max_iter, kCuts[i], kCuts[i + 1],
                                   ranged.out.get(), ranged.counts.get(), ranged.warps.get(), {});
  const Host a = download(one), b = download(ranged);
  EXPECT_TRUE(same_bits(a.data, b.data)) << variant_info(v).name;
  EXPECT_EQ(a.counts, b.counts) << variant_info(v).name;
  EXPECT_EQ(sum.launches, 5);
  EXPECT_EQ(sum.pixel_iters, whole.pixel_iters);
  if (variant_info(v).shape == variants::Shape::Rows) {
    // A warp is 32 pixels of a row: where a range starts at an odd block, its warp there runs
    // in two launches, one half in each, and pays for each half's slowest lane.
    expect_row_warps(a.warps, b.warps);
    EXPECT_GE(sum.warp_iters, whole.warp_iters);
  } else if (variant_info(v).shape == variants::Shape::Refill) {
    // Its per-tile efficiency is what its warps did while they held the tile, which depends on
    // which tiles a warp met: in range, not equal.
    for (std::size_t t = 0; t < b.warps.size(); ++t) {
      ASSERT_GT(b.warps[t], 0.0f) << "tile " << t;
      ASSERT_LE(b.warps[t], 1.0f) << "tile " << t;
    }
  } else {
    EXPECT_TRUE(same_bits(a.warps, b.warps)) << variant_info(v).name;
    EXPECT_EQ(sum.warp_iters, whole.warp_iters);
  }

  // The next frame of the view, in the same ranges and without the recording outputs: the
  // ranges together left the view's costs, so nothing is recorded; a range goes in numbering
  // order, and the whole frame in one launch by cost on the queue.
  Outputs again;
  GpuFrameStats second;
  for (std::size_t i = 0; i + 1 < kCuts.size(); ++i)
    second += ranges_gpu.render_tiles(v, grid, kView.max_iter, kCuts[i], kCuts[i + 1],
                                      again.out.get(), nullptr, nullptr, {});
  EXPECT_TRUE(same_bits(download(again.out), a.data)) << variant_info(v).name;
  EXPECT_FALSE(second.by_cost);
  EXPECT_FALSE(second.recording) << "the view's costs were known: nothing to record";
  Outputs whole_again;
  const GpuFrameStats third =
      ranges_gpu.render(v, grid, kView.max_iter, whole_again.out.get(), nullptr, nullptr);
  EXPECT_TRUE(same_bits(download(whole_again.out), a.data)) << variant_info(v).name;
  EXPECT_EQ(third.by_cost, variant_info(v).shape == variants::Shape::Queue);
  EXPECT_FALSE(third.recording);
}

TEST_P(GpuRangesTest, ASlicedFrameOfShortLaunchesEqualsTheFrameInOneLaunch) {
  const VariantId v = GetParam();
  const PixelGrid grid = pixel_grid(kView, kW, kH);
  GpuRenderer gpu(device_);
  Outputs one, sliced;
  const GpuFrameStats whole = gpu.render(v, grid, kView.max_iter, one.out.get(), one.counts.get());
  gpu.forget_view();
  GpuSlicedFrame frame;
  frame.start(v, grid, kView.max_iter);
  int steps = 0;
  while (!frame.done() && steps < 10000) {
    // Far below what a launch can take: every launch is the smallest one, a block per SM, or
    // what is left, and after the first its orbits are cut at the smallest budget.
    frame.step(gpu, sliced.out.get(), sliced.counts.get(), nullptr, 0.001);
    ++steps;
  }
  ASSERT_TRUE(frame.done());
  EXPECT_TRUE(same_bits(download(sliced.out), download(one.out))) << variant_info(v).name;
  EXPECT_EQ(download(sliced.counts), download(one.counts)) << variant_info(v).name;
  const GpuFrameStats& s = frame.stats();
  const unsigned per_launch = static_cast<unsigned>(device_.sm_count) * kWarpsPerBlock;
  EXPECT_EQ(s.launches, steps);
  EXPECT_GT(static_cast<unsigned>(s.launches), (kCuts.back() + per_launch - 1) / per_launch);
  EXPECT_GT(frame.passes(), 1);
  expect_same_steps(v, s.pixel_iters, whole.pixel_iters, download(one.counts));
  EXPECT_GT(s.kernel_ms, 0.0);
  EXPECT_LE(s.longest_launch_ms, s.kernel_ms);
  EXPECT_DOUBLE_EQ(frame.progress(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(EachShape, GpuRangesTest,
                         ::testing::Values(VariantId::Fma4, VariantId::Fma4X16,
                                           VariantId::Fma4Refill, VariantId::Fma4Rows,
                                           VariantId::Fma4Cycles),
                         [](const ::testing::TestParamInfo<VariantId>& i) {
                           return i.param == VariantId::Fma4         ? std::string("Queue")
                                  : i.param == VariantId::Fma4X16    ? std::string("Grid")
                                  : i.param == VariantId::Fma4Refill ? std::string("Refill")
                                  : i.param == VariantId::Fma4Rows   ? std::string("Rows")
                                                                     : std::string("RowsCycles");
                         });

// Every variant's frame cut by steps as well as by tiles: a budget that is no multiple of any
// variant's block of steps, passes over the ranges until no pixel is left unfinished. The same
// bits, counts and work as one launch; for the plain shapes the same divergence view too (per
// pass, a warp's slowest lane is the one with the most steps left, so its steps add up to the
// tile's slowest pixel's).
class GpuOrbitSplitTest : public CudaDeviceTest<::testing::TestWithParam<VariantId>> {};

TEST_P(GpuOrbitSplitTest, AFrameCutByStepsEqualsTheFrameInOneLaunch) {
  const VariantId v = GetParam();
  const PixelGrid grid = pixel_grid(kView, kW, kH);
  GpuRenderer one_gpu(device_), cut_gpu(device_);
  Outputs one, cut;
  const GpuFrameStats whole =
      one_gpu.render(v, grid, kView.max_iter, one.out.get(), one.counts.get(), one.warps.get());
  DeviceBuffer<OrbitSlot> slots(static_cast<std::size_t>(kW) * kH);
  DeviceBuffer<unsigned long long> tile_steps(2 * static_cast<std::size_t>(warp_count(kW, kH)));
  OrbitSplit split;
  split.slots = slots.get();
  split.tile_steps = tile_steps.get();
  split.budget = 37;
  GpuFrameStats sum;
  int passes = 0;
  for (unsigned long long pending = 1; pending > 0 && passes < 200; ++passes) {
    split.resume = passes > 0;
    pending = 0;
    for (std::size_t i = 0; i + 1 < kCuts.size(); ++i) {
      const GpuFrameStats s =
          cut_gpu.render_tiles(v, grid, kView.max_iter, kCuts[i], kCuts[i + 1], cut.out.get(),
                               cut.counts.get(), cut.warps.get(), split);
      pending += s.pixels_pending;
      sum += s;
    }
  }
  EXPECT_GT(passes, 100) << "4096 steps at 37 a pass";
  EXPECT_EQ(sum.pixels_finished, static_cast<unsigned long long>(kW) * kH);
  const Host a = download(one), b = download(cut);
  EXPECT_TRUE(same_bits(a.data, b.data)) << variant_info(v).name;
  EXPECT_EQ(a.counts, b.counts) << variant_info(v).name;
  expect_same_steps(v, sum.pixel_iters, whole.pixel_iters, a.counts);
  if (variant_info(v).stops_cycles)
    EXPECT_EQ(sum.pixel_iters, steps_in_budgets(v, grid, kView.max_iter, split.budget));
  if (variant_info(v).shape == variants::Shape::Rows && !variant_info(v).stops_cycles) {
    expect_row_warps(a.warps, b.warps);  // ranges that start at odd blocks (above)
    EXPECT_GE(sum.warp_iters, whole.warp_iters);
  } else if (variant_info(v).stops_cycles) {
    for (std::size_t t = 0; t < b.warps.size(); ++t)
      if (!below_the_image(t)) {
        ASSERT_GT(b.warps[t], 0.0f) << "tile " << t;
        ASSERT_LE(b.warps[t], 1.0f) << "tile " << t;
      }
  } else if (variant_info(v).shape != variants::Shape::Refill) {
    EXPECT_TRUE(same_bits(a.warps, b.warps)) << variant_info(v).name;
    EXPECT_EQ(sum.warp_iters, whole.warp_iters);
  } else {
    for (std::size_t t = 0; t < b.warps.size(); ++t) {
      ASSERT_GT(b.warps[t], 0.0f) << "tile " << t;
      ASSERT_LE(b.warps[t], 1.0f) << "tile " << t;
    }
  }
}

std::vector<VariantId> every_variant() {
  std::vector<VariantId> ids;
  for (const VariantInfo& v : all_variants())
    if (!v.perturbation) ids.push_back(v.id);  // no orbits cut by steps: one launch a band
  return ids;
}
INSTANTIATE_TEST_SUITE_P(EachVariant, GpuOrbitSplitTest, ::testing::ValuesIn(every_variant()),
                         [](const ::testing::TestParamInfo<VariantId>& i) {
                           std::string name(variant_info(i.param).name);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

using GpuRangesInputTest = CudaDeviceTest<>;

TEST_F(GpuRangesInputTest, ARangeOfPartBlocksIsRefused) {
  GpuRenderer gpu(device_);
  Outputs o;
  EXPECT_THROW(gpu.render_tiles(VariantId::Fma4, pixel_grid(kView, kW, kH), 64, 4, 16, o.out.get(),
                                nullptr, nullptr, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// The preview a new view shows while its frame renders: the GPU moves the old image exactly as
// the host reference does (tests/reproject_test.cpp checks the reference by hand).
class GpuReprojectTest : public CudaDeviceTest<> {};

TEST_F(GpuReprojectTest, TheDeviceMovesTheImageAsTheHostDoes) {
  const PixelGrid from = pixel_grid(kView, kW, kH);
  const PixelGrid to = pixel_grid(view_at(-0.74, 0.01, 0.2, 4096), kW, kH);  // panned, zoomed out
  std::vector<float> src(static_cast<std::size_t>(kW) * kH * kFloatsPerPixel);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 100003);
  std::vector<float> want(src.size()), got(src.size());
  reproject_on_host(from, src.data(), to, want.data());
  DeviceBuffer<float> d_src(src.size()), d_dst(src.size());
  CUDA_CHECK(
      cudaMemcpy(d_src.get(), src.data(), src.size() * sizeof(float), cudaMemcpyHostToDevice));
  reproject_on_device(from, d_src.get(), to, d_dst.get(), nullptr);
  CUDA_CHECK(
      cudaMemcpy(got.data(), d_dst.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
  // Zoomed out, the old image is a patch in the middle: both kinds of pixel are compared.
  EXPECT_NE(std::count(want.begin(), want.end(), kUnknownSmooth), 0);
  EXPECT_NE(want[(static_cast<std::size_t>(kH / 2) * kW + kW / 2) * kFloatsPerPixel],
            kUnknownSmooth);
}

}  // namespace
}  // namespace mp
