// The costliest-first tile order: the ordering kernel on made-up costs, and the renderer using
// it only for a frame of the same view, without changing a pixel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "gpu_renderer.h"
#include "model/variant_table.h"
#include "model/view.h"
#include "render_kernel.cuh"

namespace mp {
namespace {

using TileOrderTest = CudaDeviceTest<>;

template <class T>
DeviceBuffer<T> upload(const std::vector<T>& v) {
  DeviceBuffer<T> d(v.size());
  CUDA_CHECK(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

struct Queue {
  std::vector<unsigned> order;
  TilePlan plan;
};

// Any width will do: the queue holds tiles packed for it, given back here as tile numbers.
constexpr int kWidth = 1000;

Queue queue_of(const std::vector<unsigned>& costs, bool by_cost) {
  const unsigned tiles = static_cast<unsigned>(costs.size());
  DeviceBuffer<unsigned> d_costs = upload(costs),
                         counters = upload(std::vector<unsigned>(2 * kCostBuckets, 0)),
                         order = upload(std::vector<unsigned>(tiles, 0xffffffffu));
  DeviceBuffer<TilePlan> plan(1);
  DeviceBuffer<unsigned long long> sm_first = upload(std::vector<unsigned long long>(1024, ~0ull));
  OrderLaunch o;
  o.tiles = tiles;
  o.width = kWidth;
  o.by_cost = by_cost;
  o.tile_cost = d_costs.get();
  o.histogram = counters.get();
  o.fill = counters.get() + kCostBuckets;
  o.order = order.get();
  o.plan = plan.get();
  o.sm_first = sm_first.get();
  launch_tile_order(o, nullptr);
  Queue q;
  q.order.resize(tiles);
  CUDA_CHECK(
      cudaMemcpy(q.order.data(), order.get(), tiles * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned& t : q.order) t = static_cast<unsigned>(tile_of_ref(t, kWidth));
  CUDA_CHECK(cudaMemcpy(&q.plan, plan.get(), sizeof(TilePlan), cudaMemcpyDeviceToHost));
  return q;
}

TEST_F(TileOrderTest, CostliestBucketsFirstAndEveryTileOnce) {
  // 5000 tiles (not a multiple of the ordering's 1024-thread blocks), costs 0..70000.
  std::vector<unsigned> costs(5000);
  for (std::size_t t = 0; t < costs.size(); ++t) costs[t] = (t * 7919u) % 70001u;
  const Queue q = queue_of(costs, true);
  const std::vector<unsigned>& order = q.order;
  std::vector<unsigned> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned t = 0; t < sorted.size(); ++t) ASSERT_EQ(sorted[t], t) << "not a permutation";
  for (std::size_t q = 1; q < order.size(); ++q)
    ASSERT_GE(cost_bucket(costs[order[q - 1]]), cost_bucket(costs[order[q]])) << "place " << q;
  EXPECT_GE(costs[order.front()], 65536u);
  // The plan: rank k is bucket 31-k, its places hold exactly that bucket's tiles; those before
  // the tail are cut into units of `group` tiles (one tile from 2^kUnitBucket steps up, at most
  // 32). The tail is the last places, at most a quarter of them.
  const TilePlan& p = q.plan;
  EXPECT_EQ(p.tail_end, costs.size());
  EXPECT_GE(p.tail_start, costs.size() - costs.size() / kTailShare);
  EXPECT_LT(p.tail_start, costs.size());
  unsigned units = 0, bucket_start = 0;
  for (int k = 0; k < kCostBuckets; ++k) {
    const int bucket = kCostBuckets - 1 - k;
    EXPECT_EQ(p.place_start[k], bucket_start) << "bucket " << bucket;
    unsigned bucket_end = bucket_start;
    while (bucket_end < order.size() && cost_bucket(costs[order[bucket_end]]) == bucket)
      ++bucket_end;
    // Only the places before the tail are in units.
    EXPECT_EQ(p.place_end[k], bucket_start + std::min(bucket_end, p.tail_start) -
                                  std::min(bucket_start, p.tail_start))
        << "bucket " << bucket;
    bucket_start = bucket_end;
    const unsigned group = bucket >= kUnitBucket ? 1 : std::min(32u, 1u << (kUnitBucket - bucket));
    EXPECT_EQ(p.group[k], group) << "bucket " << bucket;
    EXPECT_EQ(p.unit_start[k], units);
    units += (p.place_end[k] - p.place_start[k] + group - 1) / group;
  }
  EXPECT_EQ(bucket_start, costs.size());
  EXPECT_EQ(q.plan.units, units);
  EXPECT_LT(units, costs.size());  // the cheap buckets share units
  // The costly queue: the kCostlyBuckets costliest buckets.
  const int top = cost_bucket(*std::max_element(costs.begin(), costs.end()));
  EXPECT_EQ(q.plan.costly_units,
            top < kCostlyBuckets ? q.plan.units
                                 : q.plan.unit_start[kCostBuckets - 1 - (top - kCostlyBuckets)]);
  EXPECT_GT(q.plan.costly_units, 0u);
}

TEST_F(TileOrderTest, WithoutCostsTheNumberingOrder) {
  const Queue q = queue_of(std::vector<unsigned>(3001, 5), false);
  for (unsigned place = 0; place < q.order.size(); ++place) ASSERT_EQ(q.order[place], place);
  EXPECT_EQ(q.plan.units, 3001u);
  EXPECT_EQ(q.plan.group[0], 1u);
  EXPECT_EQ(q.plan.place_end[0], 3001u);
  EXPECT_EQ(q.plan.unit_start[1], 3001u);
  EXPECT_EQ(q.plan.costly_units, 0u);
  EXPECT_EQ(q.plan.tail_start, 3001u);  // no tail without costs
  EXPECT_EQ(q.plan.tail_end, 3001u);
}

struct Frame {
  std::vector<float> data;
  std::vector<unsigned> counts;
  GpuFrameStats stats;
};

// With `with_counts` the frame runs the recording kernel, which also writes per-pixel counts;
// without, the one frames and the bench run once their view's tile costs are known.
Frame render(GpuRenderer& gpu, const View& view, int w, int h, VariantId variant = VariantId::Fma4,
             bool with_counts = true) {
  const std::size_t n = static_cast<std::size_t>(w) * h;
  DeviceBuffer<float> out(n * kFloatsPerPixel);
  DeviceBuffer<unsigned> counts(n);
  // Poison: a tile the order lost or repeated would leave pixels unwritten.
  CUDA_CHECK(cudaMemset(out.get(), 0xff, n * kFloatsPerPixel * sizeof(float)));
  CUDA_CHECK(cudaMemset(counts.get(), 0xff, n * sizeof(unsigned)));
  Frame f;
  f.stats = gpu.render(variant, pixel_grid(view, w, h), view.max_iter, out.get(),
                       with_counts ? counts.get() : nullptr);
  f.data.resize(n * kFloatsPerPixel);
  CUDA_CHECK(cudaMemcpy(f.data.data(), out.get(), f.data.size() * 4, cudaMemcpyDeviceToHost));
  if (with_counts) {
    f.counts.resize(n);
    CUDA_CHECK(cudaMemcpy(f.counts.data(), counts.get(), n * 4, cudaMemcpyDeviceToHost));
  }
  return f;
}

// Frames whose view's tile costs are known run the kernel built without recording anything; a
// view's first frame, the divergence view and the tests the recording one. Both must draw the
// same image bit for bit, from a poisoned buffer, and count the same work, for a variant with a
// colouring term and ones without.
TEST_F(TileOrderTest, TheKernelWithoutTheOptionalOutputsDrawsTheSameImage) {
  GpuRenderer gpu(device_);
  const View seahorse = view_at(-0.743643887037151, 0.131825904205330, 0.005, 1024);
  const int w = 613, h = 347;
  for (VariantId v : {VariantId::Fma4, VariantId::Fma4Sin, VariantId::Fma4Esc8, VariantId::Fp64}) {
    const Frame with = render(gpu, seahorse, w, h, v, true);
    const Frame without = render(gpu, seahorse, w, h, v, false);
    EXPECT_TRUE(with.stats.recording);
    EXPECT_FALSE(without.stats.recording);
    EXPECT_EQ(0, std::memcmp(with.data.data(), without.data.data(), with.data.size() * 4))
        << variant_info(v).name;
    EXPECT_EQ(with.stats.pixel_iters, without.stats.pixel_iters) << variant_info(v).name;
    EXPECT_EQ(with.stats.warp_iters, without.stats.warp_iters) << variant_info(v).name;
  }
}

TEST_F(TileOrderTest, SameViewGoesByCostAndGivesTheSameImage) {
  GpuRenderer gpu(device_);
  const View seahorse = view_at(-0.743643887037151, 0.131825904205330, 0.005, 4096);
  const int w = 997, h = 541;
  gpu.set_tile_order(TileOrder::Rows);
  const Frame rows = render(gpu, seahorse, w, h);
  EXPECT_FALSE(rows.stats.by_cost);
  gpu.set_tile_order(TileOrder::CostliestFirst);
  for (int i = 0; i < 2; ++i) {
    const Frame again = render(gpu, seahorse, w, h);
    EXPECT_TRUE(again.stats.by_cost) << "frame " << i;
    EXPECT_EQ(again.counts, rows.counts);
    EXPECT_EQ(0, std::memcmp(again.data.data(), rows.data.data(), rows.data.size() * 4));
    EXPECT_EQ(again.stats.pixel_iters, rows.stats.pixel_iters);
    EXPECT_EQ(again.stats.warp_iters, rows.stats.warp_iters);
  }
  // Anything that changes the tiles' costs starts over in rows.
  View deeper = seahorse;
  deeper.max_iter = 8192;
  EXPECT_FALSE(render(gpu, deeper, w, h).stats.by_cost);
  View moved = deeper;
  moved.center_x = moved.center_x + 1e-4;
  EXPECT_FALSE(render(gpu, moved, w, h).stats.by_cost);
  // A larger image (more tiles: the buffers grow), then a smaller one (the cached numbering
  // order must be rebuilt for fewer tiles): each starts in rows and matches it by cost.
  for (const int width : {w + 40, w - 300}) {
    const Frame first = render(gpu, moved, width, h);
    EXPECT_FALSE(first.stats.by_cost) << width;
    const Frame second = render(gpu, moved, width, h);
    EXPECT_TRUE(second.stats.by_cost) << width;
    EXPECT_EQ(second.counts, first.counts) << width;
    EXPECT_EQ(second.stats.warp_iters, first.stats.warp_iters) << width;
  }
}

// The recording kernel runs until the tile costs are this kernel's on this view: after a
// change of variant or view, and for one frame only. The frames without it draw the same image
// and count the same work, and the costs they leave in place still order the next frame.
TEST_F(TileOrderTest, RecordsTheTileCostsUntilTheyAreThisKernelsOnThisView) {
  GpuRenderer gpu(device_);
  const View seahorse = view_at(-0.743643887037151, 0.131825904205330, 0.005, 1024);
  View deeper = seahorse;
  deeper.max_iter = 2048;
  const int w = 613, h = 347;
  struct Step {
    VariantId variant;
    const View* view;
    bool recording;
  };
  const Step steps[] = {{VariantId::Fma4, &seahorse, true},  {VariantId::Fma4, &seahorse, false},
                        {VariantId::Fma4, &seahorse, false}, {VariantId::Fp64, &seahorse, true},
                        {VariantId::Fp64, &seahorse, false}, {VariantId::Fma4, &seahorse, true},
                        {VariantId::Fma4, &deeper, true},    {VariantId::Fma4, &deeper, false}};
  Frame recorded;
  for (std::size_t i = 0; i < std::size(steps); ++i) {
    const Step& s = steps[i];
    const Frame f = render(gpu, *s.view, w, h, s.variant, false);
    EXPECT_EQ(f.stats.recording, s.recording) << "frame " << i;
    EXPECT_EQ(f.stats.by_cost, i > 0 && steps[i - 1].view == s.view) << "frame " << i;
    if (s.recording) {
      recorded = f;
      continue;
    }
    EXPECT_EQ(0, std::memcmp(f.data.data(), recorded.data.data(), f.data.size() * 4))
        << "frame " << i;
    EXPECT_EQ(f.stats.pixel_iters, recorded.stats.pixel_iters) << "frame " << i;
    EXPECT_EQ(f.stats.warp_iters, recorded.stats.warp_iters) << "frame " << i;
  }
}

// Plain launches and lane refill take no order: they record nothing a frame did not ask for
// and leave the queue's costs as they were. forget_view() makes the next frame a view's first.
TEST_F(TileOrderTest, OtherShapesLeaveTheQueueAloneAndForgettingStartsAfresh) {
  GpuRenderer gpu(device_);
  const View seahorse = view_at(-0.743643887037151, 0.131825904205330, 0.005, 1024);
  const int w = 613, h = 347;
  struct Step {
    VariantId variant;
    bool forget, recording, by_cost;
  };
  const Step steps[] = {
      {VariantId::Fma4, false, true, false}, {VariantId::Fma4X16, false, false, false},
      {VariantId::Fma4, false, false, true}, {VariantId::Fma4Refill, false, false, false},
      {VariantId::Fma4, false, false, true}, {VariantId::Fma4, true, true, false}};
  for (std::size_t i = 0; i < std::size(steps); ++i) {
    if (steps[i].forget) gpu.forget_view();
    const Frame f = render(gpu, seahorse, w, h, steps[i].variant, false);
    EXPECT_EQ(f.stats.recording, steps[i].recording) << "frame " << i;
    EXPECT_EQ(f.stats.by_cost, steps[i].by_cost) << "frame " << i;
  }
}

}  // namespace
}  // namespace mp
