// The perturbation kernels against their CPU reference (the same per-pixel code; nvcc may fuse
// multiplies and adds that the CPU rounds apart, so a few counts may differ by a step).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "gpu_perturbation.h"
#include "kernel_params.h"
#include "model/precision_choice.h"
#include "mpfr_counts.h"
#include "render/perturbation_cpu.h"
#include "session/deep_reference.h"

namespace mp {
namespace {

struct Case {
  const char* cx;
  const char* cy;
  const char* span;
  unsigned max_iter;
  DeltaFormat format;
};

class GpuPerturbationTest : public CudaDeviceTest<::testing::TestWithParam<Case>> {};
using GpuPerturbationWarps = CudaDeviceTest<>;

TEST_P(GpuPerturbationTest, CountsEqualTheCpuReference) {
  const Case c = GetParam();
  const int w = 96, h = 64, bits = 12000;
  const View view = *parse_view(c.cx, c.cy, c.span, c.max_iter);
  const auto ref = reference_at(view.center_x, view.center_y, view, w, h, bits);
  const DeepReference& f = *ref;
  const DeepGrid grid = deep_grid(f, view, w, h);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  std::vector<float> cpu_out(n * 2), gpu_out(n * 2);
  std::vector<unsigned> cpu_counts(n), gpu_counts(n);
  const PerturbStats cs = render_perturbation_cpu(c.format, grid, whole_image(grid), f.orbit.view(),
                                                  {&f.dbl, &f.extended, &f.flt}, c.max_iter,
                                                  cpu_out.data(), cpu_counts.data());
  GpuPerturbation gpu;
  gpu.set_reference(f.orbit.view(), f.dbl.entries.data(), f.extended.entries.data(),
                    f.flt.entries.data(), f.extended.offset.data(), f.extended.levels());
  DeviceBuffer<float> out(n * 2);
  DeviceBuffer<unsigned> counts(n);
  const GpuPerturbStats gs =
      gpu.render(c.format, grid, whole_image(grid), c.max_iter, out.get(), counts.get());
  CUDA_CHECK(
      cudaMemcpy(gpu_counts.data(), counts.get(), n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::size_t same = 0, near = 0;
  for (std::size_t i = 0; i < n; ++i) {
    same += gpu_counts[i] == cpu_counts[i];
    near += (gpu_counts[i] > cpu_counts[i] ? gpu_counts[i] - cpu_counts[i]
                                           : cpu_counts[i] - gpu_counts[i]) <= 1;
  }
  EXPECT_GE(same, 0.995 * n);
  EXPECT_GE(near, 0.999 * n);
  // The tallies are the pixels' own: within the few pixels that differ.
  EXPECT_NEAR(static_cast<double>(gs.pixel_iters), static_cast<double>(cs.pixel_iters),
              0.01 * cs.pixel_iters);
  EXPECT_LT(gs.iterated, gs.pixel_iters);
  // A warp's slowest lane runs at least its average lane's steps and at most all of theirs.
  EXPECT_GE(gs.warp_iterated * 32, gs.iterated);
  EXPECT_LE(gs.warp_iterated, gs.iterated);
}

// perturb's every-step kernel runs its warps in lockstep (perturb_lockstep.cuh): the same counts
// and rebases as the CPU's every step, tallies of the pixels alone (not of the lanes without
// one), rounds that bound what they must (at least one a warp, none without a step, each rebase
// round holding at least one of the rebases and at most 32), and the CPU reference's count of them.
TEST_F(GpuPerturbationWarps, EveryStepInLockstepCountsItsRounds) {
  for (const auto& [cx, cy, span, iters] :
       {std::tuple{"-1.99999999999999999999", "1.1e-20", "3e-20", 4000u},
        std::tuple{"1.3e-51", "1", "3e-50", 3000u}}) {
    const int w = 100, h = 38;  // partial tiles at the right: lanes without a pixel step too
    const View view = *parse_view(cx, cy, span, iters);
    const auto ref = reference_at(view.center_x, view.center_y, view, w, h, 1000);
    const DeepGrid grid = deep_grid(*ref, view, w, h);
    const std::size_t n = static_cast<std::size_t>(w) * h;
    std::vector<float> cpu_out(n * 2);
    std::vector<unsigned> cpu_counts(n), gpu_counts(n);
    const PerturbStats cs =
        render_perturbation_cpu(DeltaFormat::Double, grid, whole_image(grid), ref->orbit.view(),
                                BlaTables{}, iters, cpu_out.data(), cpu_counts.data());
    GpuPerturbation gpu;
    gpu.set_reference(ref->orbit.view(), ref->dbl.entries.data(), ref->extended.entries.data(),
                      ref->flt.entries.data(), ref->extended.offset.data(), ref->extended.levels());
    DeviceBuffer<float> out(n * 2);
    DeviceBuffer<unsigned> counts(n);
    const GpuPerturbStats s = gpu.render(DeltaFormat::Double, grid, whole_image(grid), iters,
                                         out.get(), counts.get(), false);
    CUDA_CHECK(
        cudaMemcpy(gpu_counts.data(), counts.get(), n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::size_t same = 0;
    unsigned long long counted = 0;
    for (std::size_t i = 0; i < n; ++i) {
      same += gpu_counts[i] == cpu_counts[i];
      counted += gpu_counts[i];
    }
    EXPECT_GE(same, 0.995 * n) << cx;
    EXPECT_EQ(s.pixel_iters, counted) << cx;
    EXPECT_EQ(s.iterated, s.pixel_iters) << cx;
    const unsigned long long warps = static_cast<unsigned long long>(warp_count(w, h));
    EXPECT_GE(s.rounds, warps) << cx;
    EXPECT_LE(s.rounds, s.warp_iterated) << cx;
    EXPECT_LE(s.rebase_rounds, s.rounds) << cx;
    EXPECT_LE(s.rebase_rounds, s.rebases) << cx;
    EXPECT_GE(s.rebase_rounds * 32, s.rebases) << cx;
    EXPECT_GT(s.rebases, 0u) << cx << ": the case should rebase";
    EXPECT_NEAR(static_cast<double>(s.rebases), static_cast<double>(cs.rebases), 0.01 * cs.rebases)
        << cx;
    // The CPU reference's warps count the rounds as the kernel runs them (lockstep_rounds.h).
    ASSERT_TRUE(cs.rounds_counted);
    EXPECT_NEAR(static_cast<double>(cs.rounds), static_cast<double>(s.rounds), 0.01 * s.rounds)
        << cx;
    EXPECT_NEAR(static_cast<double>(cs.done_rounds), static_cast<double>(s.done_rounds),
                0.01 * s.done_rounds)
        << cx;
    EXPECT_NEAR(static_cast<double>(cs.rebase_rounds), static_cast<double>(s.rebase_rounds),
                0.01 * s.rebase_rounds)
        << cx;
  }
}

// Every sampled pixel of the view whose centre decides its count has MPFR's count, from the
// reference the program makes for it, in each of `formats` with the tables and every step: to
// 1e-10 of a pixel in double and the extended format, to 1e-4 in float (as on the CPU,
// perturbation_test.cpp).
void expect_decided_exact(const test::DecimalView& v, int w, int h,
                          std::initializer_list<DeltaFormat> formats) {
  const View view = *parse_view(v.cx, v.cy, v.span, v.max_iter);
  const int bits = view_bits(view, w) + 64;
  const auto samples = test::decided_samples(v, w, h, bits, 4, 1e-10);
  const auto float_samples = test::decided_samples(v, w, h, bits, 4, 1e-4);
  const auto ref = make_reference(view, w, h);
  const DeepGrid grid = deep_grid(*ref, view, w, h);
  GpuPerturbation gpu;
  gpu.set_reference(ref->orbit.view(), ref->dbl.entries.data(), ref->extended.entries.data(),
                    ref->flt.entries.data(), ref->extended.offset.data(), ref->extended.levels());
  const std::size_t n = static_cast<std::size_t>(w) * h;
  DeviceBuffer<float> out(n * 2);
  DeviceBuffer<unsigned> counts(n);
  std::vector<unsigned> got(n);
  for (const DeltaFormat format : formats)
    for (const bool tables : {true, false}) {
      gpu.render(format, grid, whole_image(grid), v.max_iter, out.get(), counts.get(), tables);
      CUDA_CHECK(
          cudaMemcpy(got.data(), counts.get(), n * sizeof(unsigned), cudaMemcpyDeviceToHost));
      const bool in_float = format == DeltaFormat::Float;
      const test::DecidedAgreement a = test::agreement(in_float ? float_samples : samples, got, w);
      std::printf(
          "  %s %s%s: %d of %d sampled exact; decided %d, of them %d exact, %d within "
          "one\n",
          v.span.c_str(), perturbation_name(format), tables ? "" : ", every step", a.exact,
          a.sampled, a.decided, a.decided_exact, a.decided_within_one);
      EXPECT_GE(a.decided, (in_float ? 0.6 : 0.9) * a.sampled) << v.span;
      EXPECT_EQ(a.decided_exact, a.decided) << v.span;
    }
}

// At a view an explorer reached (mpfr_counts.h).
TEST_F(GpuPerturbationWarps, AtAnExplorersViewEveryPixelItsCentreDecidesIsExact) {
  expect_decided_exact(test::kExploredView, 96, 54,
                       {DeltaFormat::Double, DeltaFormat::Extended, DeltaFormat::Float});
}

// Near minibrots past double's range (mpfr_counts.h), where the reference's orbit ends at a
// point nearer 0 than double's squares reach and pixels rebase from its value in the extended
// range.
TEST_F(GpuPerturbationWarps, NearMinibrotsPastDoublesRangeEveryDecidedPixelIsExact) {
  for (const test::DecimalView* v : {&test::kBelowSquaresView, &test::kBelowDoubleView})
    expect_decided_exact(*v, 24, 16, {DeltaFormat::Extended, DeltaFormat::Float});
}

// The divergence view's figures of a deep frame rendered in bands: every tile of the image gets
// one, at its place in the plain kernels' numbering, each a share in (0, 1] of its warp's steps.
TEST_F(GpuPerturbationWarps, EveryTileOfABandedFrameGetsItsShare) {
  const int w = 100, h = 38;  // a partial block at the right and at the bottom
  const View view = *parse_view("1.3e-51", "1", "3e-50", 3000);
  const auto ref = reference_at(view.center_x, view.center_y, view, w, h, 400);
  const DeepGrid grid = deep_grid(*ref, view, w, h);
  GpuPerturbation gpu;
  gpu.set_reference(ref->orbit.view(), ref->dbl.entries.data(), ref->extended.entries.data(),
                    ref->flt.entries.data(), ref->extended.offset.data(), ref->extended.levels());
  const std::size_t tiles = static_cast<std::size_t>(warp_count(w, h));
  std::vector<float> unset(tiles, -1.0f), got(tiles);
  DeviceBuffer<float> out(static_cast<std::size_t>(w) * h * 2), warps(tiles);
  CUDA_CHECK(cudaMemcpy(warps.get(), unset.data(), tiles * sizeof(float), cudaMemcpyHostToDevice));
  for (const PixelRect band :
       {PixelRect{0, 0, w, 10}, PixelRect{0, 10, w, 14}, PixelRect{0, 24, w, h - 24}})
    gpu.render(DeltaFormat::Double, grid, band, view.max_iter,
               out.get() + static_cast<std::size_t>(band.y0) * w * 2, nullptr, true, warps.get());
  CUDA_CHECK(cudaMemcpy(got.data(), warps.get(), tiles * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t written = 0;
  for (int py = 0; py < h; py += 2)
    for (int px = 0; px < w; px += 16) {
      const float e = got[static_cast<std::size_t>(warp_of(px, py, w))];
      EXPECT_GT(e, 0.0f) << px << "," << py;
      EXPECT_LE(e, 1.0f) << px << "," << py;
      ++written;
    }
  // The tiles of the last block's rows past the image stay as they were.
  std::size_t untouched = 0;
  for (float e : got) untouched += e == -1.0f;
  EXPECT_EQ(written + untouched, tiles);
}

INSTANTIATE_TEST_SUITE_P(
    Depths, GpuPerturbationTest,
    ::testing::Values(Case{"-1.99999999999999999999", "1.1e-20", "3e-20", 4000,
                           DeltaFormat::Double},
                      Case{"1.3e-51", "1", "3e-50", 3000, DeltaFormat::Double},
                      Case{"1.3e-301", "1", "3e-300", 6000, DeltaFormat::Extended},
                      Case{"1.3e-1001", "1", "3e-1000", 12000, DeltaFormat::Extended},
                      Case{"1.3e-3101", "1", "3e-3100", 30000, DeltaFormat::Extended},
                      Case{"-1.99999999999999999999", "1.1e-20", "3e-20", 4000, DeltaFormat::Float},
                      Case{"1.3e-301", "1", "3e-300", 6000, DeltaFormat::Float},
                      Case{"1.3e-1001", "1", "3e-1000", 12000, DeltaFormat::Float}));

}  // namespace
}  // namespace mp
