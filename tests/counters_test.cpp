// The hardware-counter source without a GPU: metric choice per chip through CUPTI's host
// library (skipped where it is absent), attribution on synthetic sample streams, and every
// refusal path (no permission, no library, old driver, another profiler) by injection.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "counters/attribution.h"
#include "counters/metric_choice.h"
#include "counters/pm_sampler.h"
#include "fake_cupti.h"

namespace mp::counters {
namespace {

std::unique_ptr<Cupti> host_library() {
  std::string why;
  return Cupti::load(&why);
}

bool has(const std::vector<ChosenMetric>& set, const std::string& pipe) {
  return std::any_of(set.begin(), set.end(), [&](const ChosenMetric& m) { return m.pipe == pipe; });
}

TEST(MetricChoice, EachChipGetsThePipesTheModelHas) {
  auto c = host_library();
  if (!c) GTEST_SKIP() << "CUPTI's host library is not installed here";
  for (const char* chip : {"TU102", "GA100", "GA102", "AD102", "GH100"}) {
    SCOPED_TRACE(chip);
    const MetricChoice m = choose_metrics(*c, chip, {});
    ASSERT_TRUE(m.error.empty()) << m.error;
    ASSERT_EQ(m.configurations.size(), 1u) << "every pipe fits one pass on " << chip;
    const auto& set = m.configurations[0];
    for (const char* pipe : {"issue", "instructions", "XU", "ALU", "clock", "SM active"})
      EXPECT_TRUE(has(set, pipe)) << pipe;
    EXPECT_TRUE(has(set, "FMA") || m.fma_from_halves);
    std::vector<std::string> names;
    for (const auto& x : set) names.push_back(x.metric);
    CuptiFailure failure;
    EXPECT_EQ(passes_needed(*c, chip, {}, names, &failure), 1);
  }
}

TEST(MetricChoice, NamesFollowTheChipNotOneList) {
  auto c = host_library();
  if (!c) GTEST_SKIP() << "CUPTI's host library is not installed here";
  const MetricChoice gh = choose_metrics(*c, "GH100", {});
  const MetricChoice tu = choose_metrics(*c, "TU102", {});
  ASSERT_FALSE(gh.configurations.empty());
  ASSERT_FALSE(tu.configurations.empty());
  // GH100's single-pass live metrics carry the TriageCompute prefixes; Turing has no split FMA.
  for (const auto& m : gh.configurations[0])
    if (m.pipe == "FMA" || m.pipe == "XU" || m.pipe == "issue")
      EXPECT_NE(m.metric.find("TriageCompute."), std::string::npos) << m.metric;
  EXPECT_TRUE(has(gh.configurations[0], "fmaheavy"));
  EXPECT_NE(std::find(tu.missing.begin(), tu.missing.end(), "fmaheavy"), tu.missing.end());
  EXPECT_TRUE(has(tu.configurations[0], "FMA"));
}

TEST(MetricChoice, AChipThatCannotFitOnePassAlternatesTwo) {
  auto c = host_library();
  if (!c) GTEST_SKIP() << "CUPTI's host library is not installed here";
  // Consumer Blackwell: CUPTI 13 cannot put every pipe's live metric in one pass.
  const MetricChoice m = choose_metrics(*c, "GB202", {});
  ASSERT_TRUE(m.error.empty()) << m.error;
  ASSERT_EQ(m.configurations.size(), 2u);
  for (const auto& set : m.configurations) EXPECT_TRUE(has(set, "clock"));
  for (const char* pipe : {"XU", "ALU", "issue"}) {
    const bool somewhere = has(m.configurations[0], pipe) || has(m.configurations[1], pipe);
    EXPECT_TRUE(somewhere) << pipe;
  }
}

TEST(MetricChoice, AnUnknownChipSaysSo) {
  auto c = host_library();
  if (!c) GTEST_SKIP() << "CUPTI's host library is not installed here";
  const MetricChoice m = choose_metrics(*c, "NOSUCHCHIP", {});
  EXPECT_FALSE(m.error.empty());
  EXPECT_TRUE(m.configurations.empty());
}

// A configuration as the choice would give it, for attribution tests.
MetricChoice two_pipe_choice() {
  MetricChoice m;
  m.chip = "TEST";
  m.configurations = {{{"FMA", "fma", MetricKind::PctOfPeak},
                       {"instructions", "inst.sum", MetricKind::Count},
                       {"clock", "clk", MetricKind::PerSecond}}};
  return m;
}

PmSample sample(std::uint64_t a, std::uint64_t b, double fma, double inst) {
  return {a, b, {fma, inst, 2e9}, 0};
}

TEST(Attribution, ALaunchGetsTheWorkOfTheSamplesOverItsSpan) {
  // Four 10 us samples; the launch runs 12..38 us at 80% FMA: the edge samples hold its ramp
  // (a part of their time) and the idle GPU around it.
  const std::vector<PmSample> s = {sample(0, 10000, 0, 0), sample(10000, 20000, 64, 100),
                                   sample(20000, 30000, 80, 120), sample(30000, 40000, 64, 90),
                                   sample(40000, 50000, 0, 0)};
  // 26 us at 2 GHz.
  const LaunchSpan l{7, 12000, 38000, 52000};
  const auto f = attribute(s, {l}, two_pipe_choice(), 10000);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].unavailable.empty());
  EXPECT_EQ(f[0].samples, 3);
  EXPECT_NEAR(f[0].clock_ghz, 2.0, 1e-9);
  ASSERT_NE(f[0].find("FMA"), nullptr);
  // (0.64 + 0.80 + 0.64) x 10 us busy over 26 us.
  EXPECT_NEAR(f[0].find("FMA")->pct, 100 * 20.8 / 26.0, 1e-9);
  EXPECT_NEAR(f[0].warp_instructions, 310, 1e-9);
  EXPECT_NEAR(f[0].span_ms, 0.026, 1e-12);
}

TEST(Attribution, ASampleAcrossTwoGroupsIsSharedByOverlap) {
  // Launches 2.5 us apart with a gap of 1 us: two groups, and one sample (longer than the gap)
  // over both.
  const std::vector<PmSample> s = {sample(0, 10000, 50, 100)};
  const LaunchSpan a{1, 0, 2500, 0}, b{2, 5000, 10000, 0};
  const auto f = attribute(s, {a, b}, two_pipe_choice(), 1000);
  ASSERT_EQ(f.size(), 2u);
  // 2.5 us against 5 us of overlap: a third and two thirds of the sample's 5 us of FMA work.
  EXPECT_NEAR(f[0].find("FMA")->pct, 100 * (5000.0 / 3) / 2500, 1e-9);
  EXPECT_NEAR(f[1].find("FMA")->pct, 100 * (5000.0 * 2 / 3) / 5000, 1e-9);
  EXPECT_NEAR(f[0].warp_instructions + f[1].warp_instructions, 100, 1e-9);
}

TEST(Attribution, NoSampleNoFigures) {
  const auto f = attribute({sample(0, 10, 1, 1)}, {{3, 100, 200, 0}}, two_pipe_choice(), 10);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].unavailable.empty());
  EXPECT_TRUE(f[0].pipes.empty());
}

TEST(Attribution, MissingSamplesWithholdTheFigures) {
  // Samples lost in the middle of the launch (overwritten before they were read): a figure from
  // the rest would be too low, so there is none, and the reason says why.
  const std::vector<PmSample> s = {sample(0, 10000, 90, 1), sample(30000, 40000, 90, 1)};
  const auto f = attribute(s, {{1, 0, 40000, 0}}, two_pipe_choice(), 10000);
  EXPECT_TRUE(f[0].pipes.empty());
  EXPECT_NE(f[0].unavailable.find("cover only 50%"), std::string::npos) << f[0].unavailable;
}

TEST(Attribution, LaunchesCloserThanAnIntervalAreOneGroup) {
  // 10 us samples: the second launch begins 4 us after the first ends, the third 10 us after.
  const std::vector<LaunchSpan> l = {{1, 0, 20000, 0}, {2, 24000, 40000, 0}, {3, 50000, 60000, 0}};
  const auto groups = neighbour_groups(l, 10000);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(groups[1], (std::vector<std::size_t>{2}));
  // In any order.
  const auto shuffled = neighbour_groups({l[2], l[0], l[1]}, 10000);
  ASSERT_EQ(shuffled.size(), 2u);
  EXPECT_EQ(shuffled[0], (std::vector<std::size_t>{1, 2}));
}

TEST(Attribution, BackToBackFramesShareTheirGroupsWorkByTime) {
  // Two frames of one view back to back (25 us each, no gap), each ramping up: 100 instructions
  // over its first 5 us, 800 over the rest. The sample across them holds the first's busy tail
  // (200) and the second's quiet start (100): split by overlap, the first would get 850, under
  // what it ran, and the second 950.
  const std::vector<PmSample> s = {sample(0, 10000, 60, 300), sample(10000, 20000, 80, 400),
                                   sample(20000, 30000, 60, 300), sample(30000, 40000, 80, 400),
                                   sample(40000, 50000, 80, 400)};
  const LaunchSpan a{1, 0, 25000, 50000}, b{2, 25000, 50000, 50000};
  const auto f = attribute(s, {a, b}, two_pipe_choice(), 10000);
  ASSERT_EQ(f.size(), 2u);
  for (const CounterFigures& x : f) {
    ASSERT_TRUE(x.unavailable.empty()) << x.unavailable;
    EXPECT_NEAR(x.warp_instructions, 900, 1e-9);
    // The group's FMA work (36 us busy) over both frames' 50 us.
    EXPECT_NEAR(x.find("FMA")->pct, 100 * 36.0 / 50, 1e-9);
  }
  EXPECT_EQ(f[0].samples, 3);
  EXPECT_EQ(f[1].samples, 3);
}

TEST(Attribution, AGroupWithAnUncoveredLaunchGetsNoFigures) {
  // The second frame's samples were lost: the first's share of the group's work would be too
  // high, so neither has figures, and each says why.
  const std::vector<PmSample> s = {sample(0, 10000, 80, 400), sample(10000, 20000, 80, 400)};
  const auto f = attribute(s, {{1, 0, 20000, 0}, {2, 21000, 40000, 0}}, two_pipe_choice(), 10000);
  EXPECT_NE(f[0].unavailable.find("of a launch within one sampling interval"), std::string::npos)
      << f[0].unavailable;
  EXPECT_NE(f[1].unavailable.find("of this launch"), std::string::npos) << f[1].unavailable;
  EXPECT_TRUE(f[0].pipes.empty());
}

TEST(Attribution, AGroupIsSettledOnceNoLaunchCanJoinIt) {
  const std::vector<LaunchSpan> l = {{1, 0, 20000, 0}, {2, 24000, 40000, 0}, {3, 80000, 90000, 0}};
  // Samples read to 45 us, at 60 us: the first group is done, the third launch not yet read.
  EXPECT_EQ(settled_launches(l, 10000, 45000, 60000, {}), (std::vector<bool>{true, true, false}));
  // Read to 40 us but at 45 us: a launch may still begin within an interval of the group's end.
  EXPECT_EQ(settled_launches(l, 10000, 40000, 45000, {}), (std::vector<bool>{false, false, false}));
  // A launch under way, begun 5 us after the group's end, may join it.
  EXPECT_EQ(settled_launches(l, 10000, 100000, 100000, {45000}),
            (std::vector<bool>{false, false, false}));
  // One begun later than an interval past the group's end cannot.
  EXPECT_EQ(settled_launches(l, 10000, 100000, 100000, {95000}),
            (std::vector<bool>{true, true, false}));
}

TEST(Attribution, FewerInstructionsThanTheModelledLoopWithholdTheFigures) {
  CounterFigures f;
  f.pipes = {{"issue", 80}};
  f.warp_instructions = 80;
  CounterFigures kept = f;
  withhold_short_counts(kept, 81);  // within 2%: counts and model agree
  EXPECT_TRUE(kept.unavailable.empty());
  EXPECT_FALSE(kept.pipes.empty());
  withhold_short_counts(f, 100);
  EXPECT_TRUE(f.pipes.empty());
  EXPECT_NE(f.unavailable.find("a sample was cut short"), std::string::npos) << f.unavailable;
}

TEST(Attribution, FmaFromItsHalves) {
  MetricChoice m;
  m.fma_from_halves = true;
  m.configurations = {{{"fmaheavy", "h", MetricKind::PctOfPeak},
                       {"fmalite", "l", MetricKind::PctOfPeak},
                       {"clock", "c", MetricKind::PerSecond}}};
  const auto f = attribute({{0, 1000, {90, 70, 1e9}, 0}}, {{1, 0, 1000, 0}}, m, 1000);
  ASSERT_NE(f[0].find("FMA"), nullptr);
  EXPECT_NEAR(f[0].find("FMA")->pct, 80, 1e-9);
}

// CUPTI's target side faked (there is no GPU here), its host side real: the sampler walks its
// whole start-up, and each step can be made to refuse. The chip is GH100 unless a test says.
std::atomic<int> set_configs{0};
std::atomic<bool> fake_gb202{false};
// CUPTI's clock moves 100 us a look; samples begin just after the margin a start leaves unread.
std::atomic<uint64_t> fake_clock{1000}, fake_started{0};
CuptiFunctions fake_target(const CuptiFunctions& host) {
  CuptiFunctions f = host;
  f.timestamp = [](uint64_t* t) {
    *t = fake_clock += 100000;
    return CUPTI_SUCCESS;
  };
  fake_cupti_basics(f);
  f.chip_name = [](CUpti_Device_GetChipName_Params* p) {
    p->pChipName = fake_gb202 ? "GB202" : "GH100";
    return CUPTI_SUCCESS;
  };
  f.set_config = [](CUpti_PmSampling_SetConfig_Params*) {
    ++set_configs;
    return CUPTI_SUCCESS;
  };
  f.counter_data_size = [](CUpti_PmSampling_GetCounterDataSize_Params* p) {
    p->counterDataSize = 64;
    return CUPTI_SUCCESS;
  };
  f.counter_data_initialize = [](CUpti_PmSampling_CounterDataImage_Initialize_Params*) {
    return CUPTI_SUCCESS;
  };
  f.start = [](CUpti_PmSampling_Start_Params*) {
    fake_started = fake_clock.load();
    return CUPTI_SUCCESS;
  };
  f.stop = [](CUpti_PmSampling_Stop_Params*) { return CUPTI_SUCCESS; };
  f.decode = [](CUpti_PmSampling_DecodeData_Params* p) {
    p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    return CUPTI_SUCCESS;
  };
  // Two samples: the first is dropped, the second (begun since the start, running on over every
  // launch) evaluated.
  f.counter_data_info = [](CUpti_PmSampling_GetCounterDataInfo_Params* p) {
    p->numTotalSamples = 512;
    p->numCompletedSamples = p->numPopulatedSamples = 2;
    return CUPTI_SUCCESS;
  };
  f.sample_info = [](CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) {
    p->startTimestamp = fake_started + 100001;
    p->endTimestamp = p->startTimestamp + 1000000000000ull;
    return CUPTI_SUCCESS;
  };
  f.activity_enable = [](CUpti_ActivityKind) { return CUPTI_SUCCESS; };
  f.activity_disable = [](CUpti_ActivityKind) { return CUPTI_SUCCESS; };
  f.activity_callbacks = [](CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) {
    return CUPTI_SUCCESS;
  };
  f.activity_flush = [](uint32_t) { return CUPTI_SUCCESS; };
  f.activity_next = [](uint8_t*, size_t, CUpti_Activity**) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  };
  return f;
}

std::unique_ptr<PmSampler> faked_sampler(std::optional<Fault> fault) {
  auto host = host_library();
  if (!host) return nullptr;
  SamplerOptions o;
  o.fault = std::move(fault);
  return std::make_unique<PmSampler>(o, std::make_unique<Cupti>(fake_target(host->functions())));
}

TEST(PmSamplerRefusals, EveryStepThatCanRefuseLeavesABannerAndTheModel) {
  if (!host_library()) GTEST_SKIP() << "CUPTI's host library is not installed here";
  {
    auto s = faked_sampler(std::nullopt);
    EXPECT_EQ(s->unavailable(), "") << "the faked start-up runs through";
    EXPECT_NE(s->description().find("GH100"), std::string::npos);
  }
  for (const char* step : PmSampler::steps()) {
    SCOPED_TRACE(step);
    auto s = faked_sampler(Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES});
    // Steps in the worker refuse at the first launch it reads samples for.
    const std::uint64_t id = s->begin();
    s->end(id, 1000);
    const auto f = s->take(id, true);
    ASSERT_TRUE(f.has_value());
    EXPECT_NE(f->unavailable.find("profiling permission"), std::string::npos) << f->unavailable;
    EXPECT_NE(s->unavailable().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
    EXPECT_NE(s->unavailable().find(step), std::string::npos) << s->unavailable();
    EXPECT_EQ(s->unavailable().find('\n'), std::string::npos) << "one line";
  }
}

TEST(PmSamplerRefusals, OtherFailuresSayWhatToDo) {
  if (!host_library()) GTEST_SKIP() << "CUPTI's host library is not installed here";
  const struct {
    const char* step;
    CUptiResult result;
    const char* says;
  } cases[] = {
      {"profiler initialize", CUPTI_ERROR_NOT_INITIALIZED, "driver is too old"},
      {"enable", CUPTI_ERROR_HARDWARE_BUSY, "another profiler"},
      {"enable", CUPTI_ERROR_INVALID_OPERATION, "another profiler"},
      {"enable", CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, "WSL"},
      {"chip name", CUPTI_ERROR_NOT_SUPPORTED, "no PM sampling"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.step);
    auto s = faked_sampler(Fault{c.step, c.result});
    EXPECT_NE(s->unavailable().find(c.says), std::string::npos) << s->unavailable();
  }
}

TEST(PmSamplerConfigurations, TwoConfigurationsTakeTurnsAndSaySo) {
  if (!host_library()) GTEST_SKIP() << "CUPTI's host library is not installed here";
  fake_gb202 = true;
  set_configs = 0;
  {
    auto s = faked_sampler(std::nullopt);
    EXPECT_EQ(s->unavailable(), "");
    EXPECT_NE(s->description().find("two configurations alternating"), std::string::npos)
        << s->description();
    // A quarter of a second each, switched while no launch is under way.
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
  }
  fake_gb202 = false;
  EXPECT_GE(set_configs.load(), 3);
}

TEST(PmSamplerRefusals, NoLibrary) {
  SamplerOptions o;
  o.library = "libcupti-that-is-not-there.so";
  PmSampler s(o);
  EXPECT_NE(s.unavailable().find("libcupti not found"), std::string::npos) << s.unavailable();
  const std::uint64_t id = s.begin();
  s.end(id, 1);
  const auto f = s.take(id, true);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->unavailable.empty());
}

}  // namespace
}  // namespace mp::counters
