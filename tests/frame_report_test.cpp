// A finished frame's one report: the model's figures derived once from what was measured, as the
// panel, the overlay, F12, compare, bench and render's records read them. Host arithmetic: runs
// without a GPU.
#include "session/frame_report.h"

#include <gtest/gtest.h>

#include "model/precision_choice.h"
#include "model/variant_table.h"

namespace mp {
namespace {

DeviceInfo sm90() {
  DeviceInfo d;
  d.name = "an sm_90 GPU";
  d.cc_major = 9;
  d.sm_count = 132;
  return d;
}

GpuFrameStats frame() {
  GpuFrameStats s;
  s.kernel_ms = 2;
  s.sm_cycles = 3'000'000;
  s.sm_cycles_mean = 2'700'000;
  s.pixel_iters = 640'000'000;
  s.warp_iters = 25'000'000;
  s.launches = 1;
  return s;
}

TEST(FrameReport, TheDeviceFactsAreWorkedOutOnce) {
  const DeviceFacts f = device_facts(sm90());
  EXPECT_EQ(f.arch, 90);
  ASSERT_TRUE(f.rates && f.cc);
  EXPECT_EQ(f.cc->major, 9);
  EXPECT_EQ(f.compute_capability(), "9.0");
  const DeviceFacts none = device_facts(std::nullopt);
  EXPECT_EQ(none.arch, kArchWithoutGpu);  // the mixes shown are the sm_90 build's
  EXPECT_FALSE(none.rates);
  EXPECT_EQ(none.compute_capability(), "");
}

// Without SASS: the declared mix, no heavy-only term; the metrics and pipe loads are the model's
// of that mix over the measured cycles, and the row the records write holds the same figures.
TEST(FrameReport, AGpuFramesModelIsDerivedFromItsMeasurementOnce) {
  const DeviceFacts f = device_facts(sm90());
  const FrameOf of{View(), VariantId::Fma4, 1920, 1080};
  const FrameReport r = gpu_frame_report(of, frame(), f, nullptr);
  EXPECT_TRUE(r.gpu);
  EXPECT_FALSE(r.mix_from_sass);
  EXPECT_LT(r.heavy_only, 0);
  const InstrMix declared = variant_info(VariantId::Fma4).per_iteration(90);
  EXPECT_DOUBLE_EQ(r.per_step.total(), declared.total());
  EXPECT_DOUBLE_EQ(r.model_instructions, declared.total() * 25'000'000);
  EXPECT_DOUBLE_EQ(r.counted_iters, 640'000'000);  // fma4 runs every step it counts
  ASSERT_TRUE(r.metrics);
  const Metrics m = derive_metrics(*f.rates, 132, declared, frame_numbers(frame()));
  EXPECT_DOUBLE_EQ(r.metrics->fraction_of_bound, m.fraction_of_bound);
  EXPECT_DOUBLE_EQ(r.metrics->clock_ghz, 1.5);  // 3 M cycles in 2 ms
  ASSERT_FALSE(r.pipe_loads.empty());
  const MeasuredRow row = measured_row(r, "current");
  EXPECT_EQ(row.variant, "fma4");
  EXPECT_EQ(row.width, 1920);
  EXPECT_DOUBLE_EQ(row.metrics.giter_per_s, r.metrics->giter_per_s);
  EXPECT_DOUBLE_EQ(row.model_instructions, r.model_instructions);
  ASSERT_EQ(row.model_busy.size(), r.pipe_loads.size());
  for (std::size_t i = 0; i < row.model_busy.size(); ++i)
    EXPECT_DOUBLE_EQ(row.model_busy[i].pct, 100 * r.pipe_loads[i].utilisation);
}

// With the SASS of the kernel build that ran: its loop's mix per step, its heavy-only term in
// the pipe loads, and a loop of several paths has no figure to hold the counters against.
TEST(FrameReport, TheSassLoopOfTheBuildThatRanIsTheMix) {
  LoadedSass sass;
  LoopListing loop;
  loop.arch = 90;
  loop.mix = InstrMix{6, 2, 0, 0, 1};
  loop.heavy_only = 2;
  loop.branches_within = 1;
  sass.loops_resumable[VariantId::Fma4] = loop;
  GpuFrameStats s = frame();
  s.resumable = true;
  const FrameReport r =
      gpu_frame_report({View(), VariantId::Fma4, 64, 64}, s, device_facts(sm90()), &sass);
  EXPECT_EQ(r.build, sass::KernelBuild::Resumable);
  EXPECT_TRUE(r.mix_from_sass);
  EXPECT_DOUBLE_EQ(r.per_step.total(), 9);
  EXPECT_DOUBLE_EQ(r.heavy_only, 2);
  EXPECT_EQ(r.loop_branches, 1u);
  EXPECT_EQ(r.comparable_instructions(), 0);
  bool split = false;
  for (const PipeLoad& p : r.pipe_loads) split = split || p.name == "fmaheavy";
  EXPECT_TRUE(split) << "sm_90 splits the FMA pipe, and the heavy-only term is known";
  // The plain build's loop is another listing: a frame of it falls back to the declared mix.
  s.resumable = false;
  EXPECT_FALSE(gpu_frame_report({View(), VariantId::Fma4, 64, 64}, s, device_facts(sm90()), &sass)
                   .mix_from_sass);
}

TEST(FrameReport, ACpuFrameIsMeasuredOnlyWithTheStepsCounted) {
  CpuFrameStats c;
  c.ms = 100;
  c.pixel_iters = 1000;
  c.pixel_counted = 1500;
  const FrameReport r = cpu_frame_report({View(), VariantId::Fma4Cycles, 64, 64}, c);
  EXPECT_FALSE(r.gpu);
  EXPECT_FALSE(r.metrics);
  EXPECT_TRUE(r.pipe_loads.empty());
  EXPECT_DOUBLE_EQ(r.render_ms(), 100);
  EXPECT_DOUBLE_EQ(r.pixel_iters(), 1000);
  EXPECT_DOUBLE_EQ(r.counted_iters, 1500);
}

// render's sidecar writes a CPU frame from its report: every figure written is the report's.
TEST(FrameReport, TheCpuSidecarsFrameIsReadFromTheReport) {
  CpuFrameStats c;
  c.ms = 250;
  c.pixel_iters = 2'000'000'000;
  c.pixel_counted = 3'000'000'000;
  c.threads = 6;
  const nlohmann::json j = nlohmann::json::parse(
      frame_json(cpu_frame_report({View(), VariantId::Fma4Cycles, 640, 360}, c))
          .dump());  // as written, then read back
  EXPECT_DOUBLE_EQ(j["measured"]["cpu_ms"].get<double>(), 250);
  EXPECT_EQ(j["measured"]["pixel_iters"].get<std::uint64_t>(), 2'000'000'000u);
  EXPECT_EQ(j["measured"]["pixel_iters_counted"].get<std::uint64_t>(), 3'000'000'000u);
  EXPECT_EQ(j["measured"]["threads"].get<unsigned>(), 6u);
  EXPECT_DOUBLE_EQ(j["derived"]["giter_per_s"].get<double>(), 8);           // 2e9 in 0.25 s
  EXPECT_DOUBLE_EQ(j["derived"]["giter_per_s_counted"].get<double>(), 12);  // 3e9 in 0.25 s
  EXPECT_TRUE(j["model"].is_string()) << "says why there is no model: no GPU pipes";
}

DeepStats deep_frame(double ms, unsigned long long iterated, unsigned long long warp_iterated) {
  DeepStats d;
  d.format = DeltaFormat::Extended;
  d.gpu = true;
  d.ms = ms;
  d.launches = 3;
  d.pixel_iters = 4'000'000;
  d.iterated = iterated;
  d.rebases = 70;
  d.warp_iterated = warp_iterated;
  return d;
}

// A deep view's frame: render's sidecar and bench's row read the same report.
TEST(FrameReport, TheDeepSidecarsFrameIsReadFromTheReport) {
  const FrameOf of{View(), VariantId::PerturbExtended, 320, 200, false, true};
  const FrameReport r = deep_frame_report(of, deep_frame(8, 1'000'000, 40'000));
  EXPECT_TRUE(r.gpu);
  EXPECT_DOUBLE_EQ(r.render_ms(), 8);
  EXPECT_DOUBLE_EQ(r.pixel_iters(), 4'000'000);
  EXPECT_DOUBLE_EQ(r.counted_iters, 4'000'000);
  const nlohmann::json j = nlohmann::json::parse(frame_json(r).dump());
  EXPECT_DOUBLE_EQ(j["measured"]["kernel_ms"].get<double>(), 8);
  EXPECT_FALSE(j["measured"].contains("cpu_ms"));
  EXPECT_EQ(j["measured"]["pixel_iters"].get<unsigned long long>(), 4'000'000u);
  EXPECT_EQ(j["measured"]["iterated"].get<unsigned long long>(), 1'000'000u);
  EXPECT_EQ(j["measured"]["skipped_by_approximation"].get<unsigned long long>(), 3'000'000u);
  EXPECT_EQ(j["measured"]["rebases"].get<unsigned long long>(), 70u);
  EXPECT_EQ(j["measured"]["launches"].get<int>(), 3);
  EXPECT_DOUBLE_EQ(j["derived"]["giter_per_s_counted"].get<double>(), 0.5);  // 4e6 in 8 ms
  EXPECT_DOUBLE_EQ(j["derived"]["giter_per_s_iterated"].get<double>(), 0.125);
  EXPECT_TRUE(j["model"].is_string());
}

// A plain GPU frame's sidecar is the records' row of its report.
TEST(FrameReport, TheGpuSidecarsFrameIsTheReportsRow) {
  const FrameReport r = gpu_frame_report({View(), VariantId::Fma4, 1920, 1080}, frame(),
                                         device_facts(sm90()), nullptr);
  EXPECT_EQ(frame_json(r), to_json(measured_row(r, "render")));
}

TEST(FrameReport, BenchsDeepRowIsReadFromItsTwoFramesReports) {
  const FrameOf of{View(), VariantId::PerturbExtended, 320, 200, false, true};
  const FrameReport approximated = deep_frame_report(of, deep_frame(8, 1'000'000, 40'000), 5);
  const FrameReport every_step = deep_frame_report(of, deep_frame(20, 4'000'000, 250'000), 5);
  DeepReference ref;
  ref.orbit.bits = 180;
  ref.orbit.z.resize(1001);
  ref.orbit.ms = 12;
  ref.bla_ms = 3;
  const DeepRow row = deep_row("deep 1", approximated, every_step, ref);
  EXPECT_EQ(row.view_name, "deep 1");
  EXPECT_EQ(row.rendered_by, perturbation_name(DeltaFormat::Extended));
  EXPECT_EQ(row.width, 320);
  EXPECT_EQ(row.frames, 5);
  EXPECT_DOUBLE_EQ(row.kernel_ms, 8);
  EXPECT_DOUBLE_EQ(row.every_step_ms, 20);
  EXPECT_DOUBLE_EQ(row.counted, 4'000'000);
  EXPECT_DOUBLE_EQ(row.iterated, 1'000'000);
  EXPECT_DOUBLE_EQ(row.rebases, 70);
  EXPECT_DOUBLE_EQ(row.simt, 1'000'000 / (32.0 * 40'000));
  EXPECT_DOUBLE_EQ(row.every_step_simt, 4'000'000 / (32.0 * 250'000));
  EXPECT_EQ(row.reference_bits, 180);
  EXPECT_DOUBLE_EQ(row.reference_steps, 1000);
  EXPECT_DOUBLE_EQ(row.reference_ms, 12);
  EXPECT_DOUBLE_EQ(row.table_ms, 3);
}

}  // namespace
}  // namespace mp
