#include "model/bound_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "model/metrics.h"
#include "model/variant_table.h"

namespace mp {
namespace {

// Seed 000: RTX 2080 Ti, 68 SMs x 64 FP32 lanes at 1.35 GHz, 4 FMA-pipe instructions per
// step, 1024 x 1024 threads x 500 x 8 steps = 4,194,304,000 steps -> 2.856 ms.
TEST(BoundModel, Seed000RtX2080TiFigure) {
  const PipeRates turing = pipe_rates(7, 5);
  const double warp_steps = 4194304000.0 / 32;
  const Bound b = compute_bound(turing, 68, InstrMix{4, 0, 0, 0, 0}, warp_steps);
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Fma), 4194304000.0 * 4 / (68 * 64));
  EXPECT_EQ(b.limiting, Pipe::Fma);
  EXPECT_NEAR(Bound::ms(b.max_cycles, 1.35e9), 2.856, 0.0005);
  // Turing issues 4 warp-instructions per clock per SM: issue is not the limit here.
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Issue), warp_steps * 4 / (68 * 4));
}

// sm_90: 128 FMA lanes = 4 warp-instructions per clock per SM = the issue rate, so loop
// overhead on other pipes makes the loop issue-bound.
TEST(BoundModel, Sm90LoopIsIssueBound) {
  const PipeRates hopper = pipe_rates(9, 0);
  const Bound b = compute_bound(hopper, 132, InstrMix{8, 2, 0, 0, 1}, 1320);
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Fma), 8 * 1320 / (4.0 * 132));     // 20
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Alu), 2 * 1320 / (2.0 * 132));     // 10
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Issue), 11 * 1320 / (4.0 * 132));  // 27.5
  EXPECT_EQ(b.limiting, Pipe::Issue);
  EXPECT_DOUBLE_EQ(b.max_cycles, 27.5);
  EXPECT_DOUBLE_EQ(b.sum_cycles, 30.0);  // FMA + ALU, one after the other
}

// One MUFU per 8 cycles per sub-partition: XU-bound when FMA work is light.
TEST(BoundModel, XuBoundWhenSineDominates) {
  const Bound b = compute_bound(pipe_rates(9, 0), 1, InstrMix{1, 0, 1, 0, 0}, 100);
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Xu), 100 / 0.5);  // 200
  EXPECT_DOUBLE_EQ(b.cycles_of(Pipe::Fma), 100 / 4.0);
  EXPECT_EQ(b.limiting, Pipe::Xu);
  EXPECT_DOUBLE_EQ(b.sum_cycles, 225);
}

TEST(PipeRates, Fp64RatioDatacentreVersusConsumer) {
  const PipeRates h100 = pipe_rates(9, 0), ada = pipe_rates(8, 9);
  EXPECT_DOUBLE_EQ(h100[Pipe::Fp64] / h100[Pipe::Fma], 0.5);
  EXPECT_DOUBLE_EQ(ada[Pipe::Fp64] / ada[Pipe::Fma], 1.0 / 64);
  EXPECT_DOUBLE_EQ(pipe_rates(8, 0)[Pipe::Fma] * 32, 64);   // A100: 64 FP32 lanes
  EXPECT_DOUBLE_EQ(pipe_rates(8, 6)[Pipe::Fma] * 32, 128);  // GA10x: fmaheavy + fmalite
}

// What a double costs without fast FP64 units: on Hopper fp64's four DFMA-pipe instructions a
// step beat df64's ~60 FMA-pipe ones; on Ada, whose FP64 runs at 1/64, the model has df64 ahead
// by the ratio of their loops' bounds.
TEST(BoundModel, Df64AgainstFp64OnDatacentreAndConsumerChips) {
  auto cycles = [](VariantId v, int major, int minor) {
    const int arch = major * 10 + minor;
    return compute_bound(pipe_rates(major, minor), 1, variant_info(v).per_iteration(arch), 1000)
        .max_cycles;
  };
  const double hopper = cycles(VariantId::Df64Step, 9, 0) / cycles(VariantId::Fp64, 9, 0);
  const double ada = cycles(VariantId::Fp64, 8, 9) / cycles(VariantId::Df64Step, 8, 9);
  // sm_90: df64 62 issue slots / 4 a clock against fp64's 7 FP64 instructions / 2 a clock.
  EXPECT_NEAR(hopper, (62.0 / 4) / (7.0 / 2), 1e-9);
  // sm_89: fp64's 7 FP64 instructions at 2 lanes per SM (1/16 a clock) against 62 / 4.
  EXPECT_NEAR(ada, (7.0 * 16) / (62.0 / 4), 1e-9);
  EXPECT_GT(ada, 7.0);
}

TEST(PipeRates, NewerChipsUseTheNearestOlderRowAndSaySo) {
  const PipeRates r = pipe_rates(12, 1);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.cc_major, 12);
  EXPECT_EQ(r.cc_minor, 0);
  EXPECT_NE(r.describe().find("nearest older row"), std::string::npos);
  EXPECT_TRUE(pipe_rates(9, 0).exact);
  EXPECT_THROW(pipe_rates(6, 1), std::out_of_range);
}

TEST(Metrics, DerivedFromMeasurementAndModel) {
  // 1e6 cycles in 0.5 ms: 2 GHz. 32e6 pixel-iterations over 1.25e6 warp-iterations. The
  // average SM worked 0.9e6 of the slowest SM's 1e6 cycles.
  const FrameNumbers m{0.5, 1e6, 32e6, 1.25e6, 0.9e6};
  const Metrics r = derive_metrics(pipe_rates(9, 0), 132, InstrMix{8, 2, 0, 0, 1}, m);
  EXPECT_DOUBLE_EQ(r.clock_ghz, 2.0);
  EXPECT_DOUBLE_EQ(r.giter_per_s, 64.0);
  EXPECT_DOUBLE_EQ(r.simt_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(r.sm_balance, 0.9);
  EXPECT_DOUBLE_EQ(r.bound.max_cycles, 1.25e6 * 11 / (4 * 132));
  EXPECT_DOUBLE_EQ(r.fraction_of_bound, r.bound.max_cycles / 1e6);
  EXPECT_DOUBLE_EQ(r.bound_max_ms, r.bound.max_cycles / 2e9 * 1e3);
}

TEST(Variants, DeclaredMixesDifferWhereTheSeedsSay) {
  const InstrMix fma5 = variant_info(VariantId::Fma5).step(90);
  const InstrMix fma4 = variant_info(VariantId::Fma4).step(90);
  const InstrMix sin = variant_info(VariantId::Fma4Sin).step(90);
  EXPECT_EQ(fma5.fma, 5);
  EXPECT_EQ(fma4.fma, 4);
  EXPECT_EQ(sin.xu, 1);
  EXPECT_EQ(find_variant("fma4-sin"), VariantId::Fma4Sin);
  EXPECT_FALSE(find_variant("fma3").has_value());
  EXPECT_EQ(variant_names().rfind("fma5, fma4, fma4-sin", 0), 0u);
  // The sine ratio is tuned per architecture: 4 sines where an FFMA takes two issue clocks.
  EXPECT_EQ(variant_info(VariantId::SinRatio).step(75).xu, 4);
  EXPECT_EQ(variant_info(VariantId::SinRatio).step(90).xu, 2);  // measured on an H200
  EXPECT_EQ(variant_info(VariantId::Fp64).step(90).fp64, 4);
  EXPECT_TRUE(variant_info(VariantId::Fp64).fp64);
  EXPECT_EQ(variant_info(VariantId::Fma4Esc8).steps_per_check, 8);
}

}  // namespace
}  // namespace mp

#include "model/pipe_load.h"

namespace mp {
namespace {

// sm_90, fma4-sin's loop: 10 FMA-pipe (2 heavy-only), 2 ALU, 1 XU, 1 branch per step.
TEST(PipeLoad, BarsOnSm90) {
  const PipeRates r = pipe_rates(9, 0);
  const double steps = 132 * 1000.0, cycles = 4000;  // 1000 steps per SM in 4000 cycles
  const auto loads = pipe_loads(r, 132, InstrMix{10, 2, 1, 0, 1}, 2, steps, cycles, 2.0);
  ASSERT_EQ(loads.size(), 8u);  // FMA, fmaheavy, fmalite, ALU, XU, FP64, LSU, issue
  EXPECT_EQ(loads[0].name, "FMA");
  EXPECT_DOUBLE_EQ(loads[0].busy_cycles, 1000 * 10 / 4.0);  // 2500
  EXPECT_DOUBLE_EQ(loads[0].utilisation, 2500 / 4000.0);
  EXPECT_EQ(loads[1].name, "fmaheavy");
  EXPECT_DOUBLE_EQ(loads[1].busy_cycles, 1000 * 5 / 2.0);  // balanced halves
  EXPECT_DOUBLE_EQ(loads[2].busy_cycles, 1000 * 5 / 2.0);
  EXPECT_DOUBLE_EQ(loads[4].busy_cycles, 1000 * 1 / 0.5);  // XU: 2000
  EXPECT_EQ(loads[6].name, "LSU");
  EXPECT_DOUBLE_EQ(loads[6].busy_cycles, 0);
  EXPECT_DOUBLE_EQ(loads[7].busy_cycles, 1000 * 14 / 4.0);  // issue: 3500
  EXPECT_TRUE(loads[7].limiting);
  EXPECT_FALSE(loads[0].limiting);
  EXPECT_DOUBLE_EQ(loads[7].alone_ms, 3500 / 2e6);
}

// The LSU pipe takes one warp-instruction a clock per SM: a loop of loads is bound there, not by
// issue, which takes four.
TEST(PipeLoad, LoadsAreBoundByTheLsuPipe) {
  const auto loads =
      pipe_loads(pipe_rates(9, 0), 1, InstrMix{0, 0, 0, 0, 1, 2}, -1, 100, 1000, 1.5);
  const auto lsu =
      std::find_if(loads.begin(), loads.end(), [](const PipeLoad& p) { return p.name == "LSU"; });
  ASSERT_NE(lsu, loads.end());
  EXPECT_DOUBLE_EQ(lsu->busy_cycles, 100 * 2 / 1.0);
  EXPECT_TRUE(lsu->limiting);
  EXPECT_DOUBLE_EQ(loads.back().busy_cycles, 100 * 3 / 4.0);  // issue
}

// Heavy-only work beyond half the FMA-pipe work makes fmaheavy the busier half.
TEST(PipeLoad, HeavyOnlyWorkLoadsTheHeavyHalf) {
  const auto loads = pipe_loads(pipe_rates(8, 6), 1, InstrMix{4, 0, 0, 0, 0}, 3, 100, 1000, 1.5);
  EXPECT_DOUBLE_EQ(loads[1].busy_cycles, 100 * 3 / 2.0);
  EXPECT_DOUBLE_EQ(loads[2].busy_cycles, 100 * 1 / 2.0);
  // Turing has no split: no heavy/lite bars.
  EXPECT_EQ(pipe_loads(pipe_rates(7, 5), 1, InstrMix{4, 0, 0, 0, 0}, 3, 100, 1000, 1.5).size(), 6u);
}

}  // namespace
}  // namespace mp
