// The sampler's whole path on the CPU: CUPTI's host side real (the metric choice), its target side
// a GPU in software. Samples tile time on CUPTI's clock; each is several units' records, which
// reach the hardware buffer one after another (as a real sample's do), so that a decode can end
// with the newest sample partly in the counter data image; kernels the tests launch come back
// through the activity callbacks. Every launch's instructions are known, so a figure read short
// (a cut sample) or misshared (back-to-back launches) shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "counters/pm_sampler.h"
#include "fake_cupti.h"

namespace mp::counters {
namespace {

constexpr int kUnits = 4;

// The counter data image as this fake lays it out: a header, then one slot per sample.
struct ImageHeader {
  std::uint32_t slots = 0, populated = 0;
};
struct Slot {
  std::uint64_t sample = 0, start = 0, end = 0;
  int units = 0;
  bool complete = false;  // its last unit's record came (whether or not the others did)
  double instructions = 0;
};

// A kernel: `rate` instructions a ns from start to end, and `head_rate` instead over its first
// `head` ns (its ramp up).
struct FakeKernel {
  std::uint64_t start = 0, end = 0;
  double rate = 0, head_rate = 0;
  std::uint64_t head = 0;
  bool reported = false;

  double work(std::uint64_t a, std::uint64_t b) const {
    auto part = [&](std::uint64_t x, std::uint64_t y, double r) {
      const std::uint64_t lo = std::max(a, x), hi = std::min(b, y);
      return hi > lo ? static_cast<double>(hi - lo) * r : 0.0;
    };
    return part(start, start + head, head_rate) + part(start + head, end, rate);
  }
  double total() const { return work(start, end); }
};

struct FakeGpu {
  std::mutex m;
  std::uint64_t interval = 200000;
  std::uint64_t stagger = 45000;  // unit u's record lands u x this after its sample ends
  bool sampling = false;
  std::uint64_t started = 0, stopped = 0;
  std::uint64_t next_sample = 0;  // the first sample not yet wholly in the buffer's past
  int next_unit = 0;
  double unit_work = 0;  // each unit's share of that sample's instructions
  int starts = 0;
  std::uint64_t sampled_ns = 0;  // time sampling ran, over every run
  std::vector<FakeKernel> kernels;
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
  std::vector<CUpti_ActivityKernel10> batch;  // the records a completed buffer holds

  double work(std::uint64_t a, std::uint64_t b) const {
    double w = 0;
    for (const FakeKernel& k : kernels) w += k.work(a, b);
    return w;
  }
};

FakeGpu& gpu() {
  static FakeGpu g;
  return g;
}

std::uint64_t clock_ns() {
  static const auto origin = std::chrono::steady_clock::now();
  return 1000000 + std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - origin)
                       .count();
}

ImageHeader* header(const uint8_t* image) {
  return reinterpret_cast<ImageHeader*>(const_cast<uint8_t*>(image));
}
Slot* slots(const uint8_t* image) {
  return reinterpret_cast<Slot*>(const_cast<uint8_t*>(image) + sizeof(ImageHeader));
}

CuptiFunctions fake_gpu_target(const CuptiFunctions& host) {
  CuptiFunctions f = host;
  f.timestamp = [](uint64_t* t) {
    *t = clock_ns();
    return CUPTI_SUCCESS;
  };
  fake_cupti_basics(f);
  f.chip_name = [](CUpti_Device_GetChipName_Params* p) {
    p->pChipName = "GH100";
    return CUPTI_SUCCESS;
  };
  f.set_config = [](CUpti_PmSampling_SetConfig_Params* p) {
    std::lock_guard<std::mutex> lock(gpu().m);
    gpu().interval = p->samplingInterval;
    return CUPTI_SUCCESS;
  };
  f.counter_data_size = [](CUpti_PmSampling_GetCounterDataSize_Params* p) {
    p->counterDataSize = sizeof(ImageHeader) + p->maxSamples * sizeof(Slot);
    return CUPTI_SUCCESS;
  };
  f.counter_data_initialize = [](CUpti_PmSampling_CounterDataImage_Initialize_Params* p) {
    std::memset(p->pCounterData, 0, p->counterDataSize);
    header(p->pCounterData)->slots =
        static_cast<std::uint32_t>((p->counterDataSize - sizeof(ImageHeader)) / sizeof(Slot));
    return CUPTI_SUCCESS;
  };
  // A start empties the hardware buffer; the first sample begins there.
  f.start = [](CUpti_PmSampling_Start_Params*) {
    FakeGpu& g = gpu();
    std::lock_guard<std::mutex> lock(g.m);
    g.sampling = true;
    g.started = clock_ns();
    g.next_sample = 0;
    g.next_unit = 0;
    ++g.starts;
    return CUPTI_SUCCESS;
  };
  f.stop = [](CUpti_PmSampling_Stop_Params*) {
    FakeGpu& g = gpu();
    std::lock_guard<std::mutex> lock(g.m);
    g.sampling = false;
    g.stopped = clock_ns();
    g.sampled_ns += g.stopped - g.started;
    return CUPTI_SUCCESS;
  };
  // Moves every record the buffer holds by now into the image, a slot per sample. Where the
  // image has no room, the records left are dropped, as an H100 did (a launch at view C lost
  // the decode round's worth of samples after its image filled).
  f.decode = [](CUpti_PmSampling_DecodeData_Params* p) {
    FakeGpu& g = gpu();
    std::lock_guard<std::mutex> lock(g.m);
    p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    p->overflow = 0;
    const std::uint64_t t = clock_ns();
    ImageHeader* h = header(p->pCounterDataImage);
    Slot* s = slots(p->pCounterDataImage);
    bool dropping = false;
    for (;;) {
      const std::uint64_t start = g.started + g.next_sample * g.interval;
      const std::uint64_t end = start + g.interval;
      if (!g.sampling && end > g.stopped) break;
      if (end + g.next_unit * g.stagger > t) break;
      Slot* last = h->populated ? &s[h->populated - 1] : nullptr;
      if (!dropping && (!last || last->sample != g.next_sample)) {
        if (h->populated == h->slots) {
          p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
          dropping = true;
        } else {
          last = &s[h->populated++];
          *last = Slot{g.next_sample, start, end, 0, false, 0};
        }
      }
      if (g.next_unit == 0) g.unit_work = g.work(start, end) / kUnits;
      if (!dropping) {
        ++last->units;
        last->instructions += g.unit_work;
      }
      if (++g.next_unit == kUnits) {
        if (!dropping) last->complete = true;
        g.next_unit = 0;
        ++g.next_sample;
      }
    }
    return CUPTI_SUCCESS;
  };
  f.counter_data_info = [](CUpti_PmSampling_GetCounterDataInfo_Params* p) {
    const ImageHeader* h = header(p->pCounterDataImage);
    const Slot* s = slots(p->pCounterDataImage);
    p->numTotalSamples = h->slots;
    p->numPopulatedSamples = h->populated;
    p->numCompletedSamples =
        h->populated && !s[h->populated - 1].complete ? h->populated - 1 : h->populated;
    return CUPTI_SUCCESS;
  };
  f.sample_info = [](CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) {
    const Slot& s = slots(p->pCounterDataImage)[p->sampleIndex];
    p->startTimestamp = s.start;
    p->endTimestamp = s.end;
    return CUPTI_SUCCESS;
  };
  // The instruction count from the slot, 2 GHz for the clock, 50% for every pipe.
  f.host_evaluate = [](CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
    const Slot& s = slots(p->pCounterDataImage)[p->rangeIndex];
    for (size_t i = 0; i < p->numMetrics; ++i) {
      const std::string name = p->ppMetricNames[i];
      const auto ends = [&](const std::string& tail) {
        return name.size() > tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
      };
      p->pMetricValues[i] = ends(".sum") ? s.instructions : ends(".per_second") ? 2e9 : 50;
    }
    return CUPTI_SUCCESS;
  };
  f.activity_enable = [](CUpti_ActivityKind) { return CUPTI_SUCCESS; };
  f.activity_disable = [](CUpti_ActivityKind) { return CUPTI_SUCCESS; };
  f.activity_callbacks = [](CUpti_BuffersCallbackRequestFunc r,
                            CUpti_BuffersCallbackCompleteFunc c) {
    std::lock_guard<std::mutex> lock(gpu().m);
    gpu().requested = r;
    gpu().completed = c;
    return CUPTI_SUCCESS;
  };
  // The kernels that have ended, in one completed buffer.
  f.activity_flush = [](uint32_t) {
    FakeGpu& g = gpu();
    CUpti_BuffersCallbackRequestFunc requested;
    CUpti_BuffersCallbackCompleteFunc completed;
    {
      std::lock_guard<std::mutex> lock(g.m);
      g.batch.clear();
      const std::uint64_t t = clock_ns();
      for (FakeKernel& k : g.kernels)
        if (!k.reported && k.end <= t) {
          CUpti_ActivityKernel10 r{};
          r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
          r.start = k.start;
          r.end = k.end;
          g.batch.push_back(r);
          k.reported = true;
        }
      requested = g.requested;
      completed = g.completed;
    }
    if (g.batch.empty() || !requested || !completed) return CUPTI_SUCCESS;
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    requested(&buffer, &size, &max_records);
    completed(nullptr, 0, buffer, size, g.batch.size() * sizeof(CUpti_ActivityKernel10));
    return CUPTI_SUCCESS;
  };
  f.activity_next = [](uint8_t*, size_t, CUpti_Activity** record) {
    std::vector<CUpti_ActivityKernel10>& b = gpu().batch;
    const std::size_t next =
        *record ? reinterpret_cast<CUpti_ActivityKernel10*>(*record) - b.data() + 1 : 0;
    if (next >= b.size()) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = reinterpret_cast<CUpti_Activity*>(&b[next]);
    return CUPTI_SUCCESS;
  };
  return f;
}

std::unique_ptr<Cupti> host_library() {
  std::string why;
  return Cupti::load(&why);
}

// A sampler on the fake GPU, which starts afresh.
std::unique_ptr<PmSampler> sampler_on_fake_gpu(const SamplerOptions& o) {
  auto host = host_library();
  if (!host) return nullptr;
  {
    FakeGpu& g = gpu();
    std::lock_guard<std::mutex> lock(g.m);
    g.kernels.clear();
    g.starts = 0;
    g.sampled_ns = 0;
  }
  return std::make_unique<PmSampler>(o,
                                     std::make_unique<Cupti>(fake_gpu_target(host->functions())));
}

struct Launched {
  std::uint64_t reading = 0;
  double instructions = 0;  // what its kernel ran
  std::uint64_t ns = 0;     // how long it ran
};

// One kernel of `ns`, between a begin() and an end() of `s` where one is given.
Launched launch(PmSampler* s, std::uint64_t ns, double rate, double head_rate = 0,
                std::uint64_t head = 0) {
  Launched l;
  if (s) l.reading = s->begin();
  FakeKernel k;
  k.start = clock_ns() + 20000;
  k.end = k.start + ns;
  k.rate = rate;
  k.head_rate = head ? head_rate : rate;
  k.head = head;
  {
    std::lock_guard<std::mutex> lock(gpu().m);
    gpu().kernels.push_back(k);
  }
  l.instructions = k.total();
  l.ns = ns;
  while (clock_ns() < k.end + 10000) std::this_thread::sleep_for(std::chrono::microseconds(50));
  if (s) s->end(l.reading, 2.0 * ns);
  return l;
}

TEST(PmSamplerOnAFakeGpu, RenewingTheImageCutsNoSampleShort) {
  SamplerOptions o;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the first samples
  // About 1.2 s of 2 ms launches half a millisecond apart: the 1024-sample image is renewed a
  // dozen times, each while a launch runs, and most decodes end with a sample partly read.
  // Figures are taken as they come: the sampler keeps no more than 64 that nobody took.
  std::deque<Launched> runs;
  int short_counts = 0, missing = 0;
  auto check = [&](const Launched& l, const CounterFigures& f) {
    if (!f.unavailable.empty()) {
      ++missing;
      ADD_FAILURE() << f.unavailable;
    } else if (std::abs(f.warp_instructions - l.instructions) > 1e-6 * l.instructions) {
      ++short_counts;
      ADD_FAILURE() << "launch " << l.reading << ": the counters saw " << f.warp_instructions
                    << " instructions of " << l.instructions;
    }
  };
  for (int i = 0; i < 450; ++i) {
    runs.push_back(launch(s.get(), 2000000, 3.0));
    while (!runs.empty()) {
      const auto f = s->take(runs.front().reading, false);
      if (!f) break;
      check(runs.front(), *f);
      runs.pop_front();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  for (const Launched& l : runs) {
    const auto f = s->take(l.reading, true);
    ASSERT_TRUE(f.has_value());
    check(l, *f);
  }
  EXPECT_EQ(short_counts, 0);
  EXPECT_EQ(missing, 0);
}

TEST(PmSamplerOnAFakeGpu, ALaunchLongerThanTheImageIsCutOnceInsteadOfFillingIt) {
  // At 50 us a 4096-sample image fills in about 205 ms, and a 400 ms launch's decodes mostly end
  // within a sample, so no boundary comes to renew it on. Left to fill, it would drop a decode
  // round's records (25 ms, 6% of the launch: withheld); cut, the launch loses one sample of
  // 8,000. The launches after it are read whole, at the interval asked for.
  SamplerOptions o;
  o.interval_us = 50;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Apart by more than an interval: launches closer than that are attributed as one group,
  // their work shared by their times (BackToBackLaunchesGetTheirOwnWork), not what this checks.
  std::vector<Launched> runs{launch(s.get(), 400000000, 3.0)};
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    runs.push_back(launch(s.get(), 20000000, 2.0));
  }
  for (const Launched& l : runs) {
    const auto f = s->take(l.reading, true);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->unavailable, "") << "launch " << l.reading;
    const double samples = l.ns / 50000.0;
    EXPECT_NEAR(f->warp_instructions, l.instructions, l.instructions * 2.0 / samples)
        << "launch " << l.reading;
  }
  EXPECT_EQ(s->description().find("raised"), std::string::npos) << s->description();
  EXPECT_EQ(s->description().find("lost"), std::string::npos) << s->description();
}

TEST(PmSamplerOnAFakeGpu, ALaunchAtOnceAfterTheStartIsReadWhole) {
  // The first sample after a start spans the time before it and is not read: a launch begun at
  // once waits until the samples over it count.
  SamplerOptions o;
  o.interval_us = 1000;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  const Launched l = launch(s.get(), 3000000, 2.0);
  const auto f = s->take(l.reading, true);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->unavailable, "");
  EXPECT_NEAR(f->warp_instructions, l.instructions, 1e-6 * l.instructions);
}

TEST(PmSamplerOnAFakeGpu, BackToBackLaunchesGetTheirOwnWork) {
  // Frames of one view back to back, as the compare table times them, each ramping up: a sample
  // across two of them holds the first's tail and the next one's busier start.
  SamplerOptions o;
  o.interval_us = 1000;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the first samples
  std::vector<Launched> runs;
  for (int i = 0; i < 12; ++i) runs.push_back(launch(s.get(), 3000000, 1.0, 4.0, 500000));
  for (const Launched& l : runs) {
    const auto f = s->take(l.reading, true);
    ASSERT_TRUE(f.has_value());
    ASSERT_EQ(f->unavailable, "");
    EXPECT_NEAR(f->warp_instructions, l.instructions, 1e-3 * l.instructions) << l.reading;
  }
}

TEST(PmSamplerOnAFakeGpu, OnDemandSamplesAroundTheFramesItReads) {
  SamplerOptions o;
  o.on_demand = true;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  // Two seconds of 8 ms frames with a 1 ms kernel each, read where the duty cycle picks them.
  const std::uint64_t t0 = clock_ns();
  std::vector<Launched> read;
  std::vector<std::uint64_t> read_at;
  while (clock_ns() - t0 < 2000000000ull) {
    const std::uint64_t frame = clock_ns();
    const bool reading = s->read_frame();
    const Launched l = launch(reading ? s.get() : nullptr, 1000000, 2.0);
    if (reading) {
      read.push_back(l);
      read_at.push_back(frame);
    }
    std::this_thread::sleep_until(std::chrono::steady_clock::now() +
                                  std::chrono::nanoseconds(8000000 - (clock_ns() - frame)));
  }
  // Fresh: a frame read every few (the minimum period is 50 ms, about six frames here).
  ASSERT_GE(read.size(), 10u);
  for (std::size_t i = 1; i < read_at.size(); ++i)
    EXPECT_LT(read_at[i] - read_at[i - 1], 200000000u) << "frames unread for too long";
  for (const Launched& l : read) {
    const auto f = s->take(l.reading, true);
    ASSERT_TRUE(f.has_value());
    ASSERT_EQ(f->unavailable, "");
    EXPECT_NEAR(f->warp_instructions, l.instructions, 1e-6 * l.instructions);
  }
  // Sampling ran around those frames only: a small part of the time.
  std::lock_guard<std::mutex> lock(gpu().m);
  const std::uint64_t wall = clock_ns() - t0;
  const std::uint64_t sampled =
      gpu().sampled_ns + (gpu().sampling ? clock_ns() - gpu().started : 0);
  EXPECT_LT(sampled, wall / 3) << gpu().starts << " starts";
}

TEST(PmSamplerOnAFakeGpu, OnDemandStartsSamplingForALaunchThatMustBeRead) {
  SamplerOptions o;
  o.on_demand = true;
  auto s = sampler_on_fake_gpu(o);
  if (!s) GTEST_SKIP() << "CUPTI's host library is not installed here";
  ASSERT_EQ(s->unavailable(), "");
  // No frame comes, so the sampling started at set-up stops; the compare table's launch is read
  // all the same.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    std::lock_guard<std::mutex> lock(gpu().m);
    EXPECT_FALSE(gpu().sampling);
  }
  const Launched l = launch(s.get(), 2000000, 1.5);
  const auto f = s->take(l.reading, true);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->unavailable, "");
  EXPECT_NEAR(f->warp_instructions, l.instructions, 1e-6 * l.instructions);
}

}  // namespace
}  // namespace mp::counters
