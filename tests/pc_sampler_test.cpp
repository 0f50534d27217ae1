// PC sampling without a GPU: CUPTI's records parsed from buffers in the layout CUPTI fills, the
// recorded fixtures (tests/fixtures/stalls) attributed to the lines of their SASS, and the sampler
// on a faked CUPTI: its readings, every refusal (no permission, another profiler, a chip without
// PC sampling, no library, no driver) by injection, and its turns with PM sampling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "counters/pc_sampler.h"
#include "model/sass.h"
#include "model/stall_figures.h"

namespace mp::counters {
namespace {

// ---- The records as text (the fixtures' form), and back into CUPTI's layout ----

struct Record {
  std::uint64_t crc = 0, offset = 0;
  std::uint32_t function_index = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> states;  // CUPTI's index, samples
  std::string function;
};
struct Buffer {
  std::uint64_t range = 0, total = 0, dropped = 0, non_user = 0;
  bool full = false;
  std::size_t remaining = 0;
  std::vector<Record> pcs;
};
struct Reading {
  int period = 0;
  std::vector<std::pair<std::uint32_t, std::string>> reasons;
  std::vector<Buffer> buffers;
};
struct Fixture {
  std::vector<Reading> readings;
  std::string sass;  // cuobjdump's text of the kernels, after the line "sass"
};

Fixture parse_fixture(const std::string& text) {
  Fixture fx;
  std::istringstream in(text);
  std::string line;
  bool sass = false;
  while (std::getline(in, line)) {
    if (sass) {
      fx.sass += line + "\n";
      continue;
    }
    std::istringstream w(line);
    std::string word;
    w >> word;
    if (word == "sass") {
      sass = true;
    } else if (word == "reading") {
      std::string n, period;
      fx.readings.emplace_back();
      w >> n >> period >> fx.readings.back().period;
    } else if (word == "reason") {
      std::uint32_t i = 0;
      std::string name;
      w >> i >> name;
      fx.readings.back().reasons.emplace_back(i, name);
    } else if (word == "range") {
      Buffer b;
      std::string k;
      int full = 0;
      w >> b.range >> k >> b.total >> k >> b.dropped >> k >> b.non_user >> k >> full >> k;
      std::size_t pcs = 0;
      w >> pcs >> k >> b.remaining;
      b.full = full != 0;
      fx.readings.back().buffers.push_back(b);
    } else if (word == "pc") {
      Record r;
      std::size_t count = 0;
      w >> std::hex >> r.crc >> r.offset >> std::dec >> r.function_index >> count;
      for (std::size_t i = 0; i < count; ++i) {
        std::string pair;
        w >> pair;
        const std::size_t colon = pair.find(':');
        r.states.emplace_back(std::stoul(pair.substr(0, colon)),
                              std::stoul(pair.substr(colon + 1)));
      }
      w >> r.function;
      fx.readings.back().buffers.back().pcs.push_back(r);
    }
  }
  return fx;
}

// A buffer as CUPTI fills it, with the storage its pointers point into.
struct Built {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<std::vector<CUpti_PCSamplingStallReason>> states;
  std::vector<std::vector<char>> names;
};

void build(const Buffer& b, Built& out) {
  out.pcs.assign(b.pcs.size(), CUpti_PCSamplingPCData{});
  out.states.assign(b.pcs.size(), {});
  out.names.assign(b.pcs.size(), {});
  for (std::size_t i = 0; i < b.pcs.size(); ++i) {
    const Record& r = b.pcs[i];
    CUpti_PCSamplingPCData& p = out.pcs[i];
    p.size = sizeof p;
    p.cubinCrc = r.crc;
    p.pcOffset = r.offset;
    p.functionIndex = r.function_index;
    out.names[i].assign(r.function.begin(), r.function.end());
    out.names[i].push_back('\0');
    p.functionName = out.names[i].data();
    for (const auto& [index, samples] : r.states) out.states[i].push_back({index, samples});
    p.stallReasonCount = out.states[i].size();
    p.stallReason = out.states[i].data();
  }
  out.data = CUpti_PCSamplingData{};
  out.data.size = sizeof out.data;
  out.data.collectNumPcs = out.pcs.size();
  out.data.totalSamples = b.total;
  out.data.droppedSamples = b.dropped;
  out.data.totalNumPcs = out.pcs.size();
  out.data.remainingNumPcs = b.remaining;
  out.data.rangeId = b.range;
  out.data.pPcData = out.pcs.data();
  out.data.nonUsrKernelsTotalSamples = b.non_user;
  out.data.hardwareBufferFull = b.full;
}

// The readings' figures, read as the sampler reads CUPTI's buffers.
StallFigures figures_of(const Fixture& fx) {
  StallFigures all;
  for (const Reading& reading : fx.readings) {
    StallFigures r;
    r.readings = 1;
    r.period_log2 = reading.period;
    std::vector<std::uint32_t> index;
    for (const auto& [i, name] : reading.reasons) {
      r.reasons.push_back(stall_reason(name));
      index.push_back(i);
    }
    std::uint64_t range = ~std::uint64_t{0};
    for (const Buffer& b : reading.buffers) {
      Built built;
      build(b, built);
      add_records(built.data, index, b.range != range, &r);
      range = b.range;
    }
    all.merge(r);
  }
  return all;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kKernel =
    "_ZN2mp49_GLOBAL__N__8166d37f_16_render_kernel_cu_7fec4fa613render_kernelINS_8variants"
    "7Fma4X16ELb0EEEvNS_12RenderLaunchE";

TEST(PcRecords, ABufferAsCuptiFillsIt) {
  Buffer b;
  b.range = 4;
  b.total = 130;
  b.dropped = 5;
  b.non_user = 7;
  // CUPTI's indices 9 and 2 are reasons 0 and 1; 40 is none the sampler asked for (ignored).
  b.pcs.push_back({1, 0x460, 3, {{9, 50}, {2, 20}, {40, 99}}, "k"});
  b.pcs.push_back({1, 0x470, 3, {{2, 30}}, "k"});
  b.pcs.push_back({1, 0x470, 3, {{9, 10}}, "k"});  // the same PC again: added up
  b.pcs.push_back({1, 0x10, 8, {{9, 8}}, ""});     // a record without a name
  Built built;
  build(b, built);
  built.pcs[3].functionName = nullptr;
  StallFigures f;
  f.reasons = {stall_reason("smsp__pcsamp_warps_issue_stalled_selected"),
               stall_reason("smsp__pcsamp_warps_issue_stalled_wait")};
  add_records(built.data, {9, 2}, true, &f);
  ASSERT_EQ(f.pcs.size(), 3u);
  EXPECT_EQ(f.pcs[0].function, "k");
  EXPECT_EQ(f.pcs[0].pc_offset, 0x460u);
  EXPECT_EQ(f.pcs[0].by_reason, (std::vector<std::uint64_t>{50, 20}));
  EXPECT_EQ(f.pcs[1].by_reason, (std::vector<std::uint64_t>{10, 30}));
  EXPECT_EQ(f.pcs[2].function, "");
  EXPECT_EQ(f.samples_in(), 118u);
  EXPECT_EQ(f.cupti_total, 130u);
  EXPECT_EQ(f.dropped, 5u);
  EXPECT_EQ(f.non_user, 7u);
  // A second buffer of the same range: its records, not CUPTI's counts again.
  add_records(built.data, {9, 2}, false, &f);
  EXPECT_EQ(f.samples_in(), 236u);
  EXPECT_EQ(f.cupti_total, 130u);
}

TEST(PcRecords, TheirTextReadsBackAsTheSameFigures) {
  Buffer b;
  b.range = 2;
  b.total = 90;
  b.full = true;
  b.pcs.push_back({0xabc, 0x460, 3, {{9, 50}, {2, 20}}, kKernel});
  b.pcs.push_back({0xabc, 0x8a0, 3, {{2, 20}}, kKernel});
  Built built;
  build(b, built);
  const std::string text =
      "reading 1 period 13\nreason 9 smsp__pcsamp_warps_issue_stalled_selected\n"
      "reason 2 smsp__pcsamp_warps_issue_stalled_wait\n" +
      records_text(built.data);
  const StallFigures f = figures_of(parse_fixture(text));
  EXPECT_EQ(f.period_log2, 13);
  EXPECT_TRUE(f.buffer_full);
  EXPECT_EQ(f.cupti_total, 90u);
  ASSERT_EQ(f.pcs.size(), 2u);
  EXPECT_EQ(f.pcs[0].function, kKernel);
  EXPECT_EQ(f.pcs[1].pc_offset, 0x8a0u);
  EXPECT_EQ(f.pcs[0].by_reason, (std::vector<std::uint64_t>{50, 20}));
}

// The synthetic fixture's figures, worked out by hand from its records.
TEST(PcRecords, TheSyntheticFixtureOnItsKernelsLines) {
  const Fixture fx =
      parse_fixture(read_file(std::string(MP_FIXTURES) + "/stalls/synthetic-fma4-x16.txt"));
  ASSERT_EQ(fx.readings.size(), 2u);
  const StallFigures f = figures_of(fx);
  EXPECT_EQ(f.readings, 2);
  EXPECT_EQ(f.period_log2, 15);
  EXPECT_EQ(f.cupti_total, 2500u);  // 2100 + 400, the second reading's counts once
  EXPECT_EQ(f.dropped, 50u);
  EXPECT_EQ(f.samples_in(), 2400u);
  EXPECT_EQ(f.samples_in(kKernel), 2350u);

  const StallSummary all = summarize(f);
  ASSERT_NE(all.leading_stall(), nullptr);
  EXPECT_EQ(all.leading_stall()->label, "dispatch stall");  // 300 + 50 + 100 of 2400
  EXPECT_EQ(all.leading_stall()->samples, 450u);
  EXPECT_EQ(all.leading_stall()->not_issued, 180u);
  EXPECT_EQ(all.not_issued, 490u);
  EXPECT_EQ(leading_stall_text(all), "dispatch stall 19% of samples");
  EXPECT_DOUBLE_EQ(all.issued_share(), 1200.0 / 2400);

  const std::vector<sass::Function> fns = sass::parse_cuobjdump(fx.sass);
  ASSERT_EQ(fns.size(), 1u);
  const std::optional<sass::Loop> loop = sass::find_step_loop(fns[0]);
  ASSERT_TRUE(loop);
  const std::vector<sass::Instruction> code(fns[0].code.begin() + loop->first,
                                            fns[0].code.begin() + loop->last + 1);
  EXPECT_EQ(code.front().address, 0x460u);
  EXPECT_EQ(code.back().address, 0xd60u);
  const ListingStalls l = attribute_to_lines(f, kKernel, code);
  EXPECT_EQ(l.function_samples, 2350u);
  EXPECT_EQ(l.on_lines, 2200u);  // 0x460, 0x470, 0x490, 0x8a0, 0xd60; 0x10 and 0xe70 outside
  const auto at = [&](unsigned address) {
    return *std::find_if(l.lines.begin(), l.lines.end(),
                         [&](const LineStalls& x) { return x.address == address; });
  };
  const LineStalls first = at(0x460);
  EXPECT_EQ(first.samples, 1100u);
  EXPECT_EQ(stall_column_text(first), " 46.8%  selected 55%, dispatch stall 36%");
  EXPECT_EQ(stall_column_text(at(0x490)), "  4.3%  wait 100%");
  EXPECT_EQ(stall_column_text(at(0x8a0)), " 10.6%  branch resolving 60%, selected 40%");
  EXPECT_EQ(at(0x480).samples, 0u);
  EXPECT_EQ(l.over_lines.leading_stall()->label, "dispatch stall");
}

// The records an H100 gave at view C (scripts/device/counters.sh stalls, one reading each): what
// bench --stalls printed there over three frames, from the one reading kept here. fma4-x16's
// issue slots went to dispatch stalls (12.1% of its samples in that run); fma4-rows's step loop
// held a small part of its samples (17.6%), the rest in the pixel's start and finish.
TEST(PcRecords, TheH100sRecordsAtViewC) {
  const auto figures = [](const char* name) {
    return figures_of(parse_fixture(read_file(std::string(MP_FIXTURES) + "/stalls/" + name)));
  };
  const StallFigures x16 = figures("recorded-fma4-x16-C.txt");
  EXPECT_EQ(x16.readings, 1);
  const StallSummary s = summarize(x16);
  ASSERT_NE(s.leading_stall(), nullptr);
  EXPECT_EQ(s.leading_stall()->label, "dispatch stall");
  const double dispatch = static_cast<double>(s.leading_stall()->samples) / x16.samples_in();
  EXPECT_NEAR(dispatch, 0.121, 0.01);  // one reading of the three

  const StallFigures rows = figures("recorded-fma4-rows-C.txt");
  const Fixture fx =
      parse_fixture(read_file(std::string(MP_FIXTURES) + "/stalls/recorded-fma4-rows-C.txt"));
  const std::vector<sass::Function> fns = sass::parse_cuobjdump(fx.sass);
  ASSERT_EQ(fns.size(), 1u);
  const std::optional<sass::Loop> loop = sass::find_step_loop(fns[0]);
  ASSERT_TRUE(loop);
  const ListingStalls l = attribute_to_lines(
      rows, fns[0].name, {fns[0].code.begin() + loop->first, fns[0].code.begin() + loop->last + 1});
  const double on_loop = static_cast<double>(l.on_lines) / l.function_samples;
  EXPECT_NEAR(on_loop, 0.176, 0.01);
}

// What holds for any recorded fixture, the GPU machine's too: every sample of the kernel sits on
// one of its instructions, not-issued parts never pass their states, lines add up.
TEST(PcRecords, EveryFixtureAttributesToItsSass) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(MP_FIXTURES) + "/stalls")) {
    SCOPED_TRACE(e.path().filename().string());
    ++files;
    const Fixture fx = parse_fixture(read_file(e.path()));
    ASSERT_FALSE(fx.readings.empty());
    const StallFigures f = figures_of(fx);
    std::map<std::string, std::uint64_t> per_kernel;
    for (const PcSamples& p : f.pcs) per_kernel[p.function] += f.samples(p);
    const auto kernel = std::max_element(per_kernel.begin(), per_kernel.end(),
                                         [](auto& a, auto& b) { return a.second < b.second; });
    ASSERT_NE(kernel, per_kernel.end());
    const std::vector<sass::Function> fns = sass::parse_cuobjdump(fx.sass);
    const auto fn = std::find_if(fns.begin(), fns.end(),
                                 [&](const sass::Function& x) { return x.name == kernel->first; });
    ASSERT_NE(fn, fns.end()) << "the fixture holds the SASS of " << kernel->first;
    for (const PcSamples& p : f.pcs) {
      if (p.function != fn->name) continue;
      EXPECT_TRUE(std::any_of(fn->code.begin(), fn->code.end(),
                              [&](const sass::Instruction& i) { return i.address == p.pc_offset; }))
          << std::hex << p.pc_offset << " is an instruction's address";
      std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_label;
      for (std::size_t i = 0; i < f.reasons.size(); ++i)
        (f.reasons[i].not_issued ? by_label[f.reasons[i].label].second
                                 : by_label[f.reasons[i].label].first) += p.by_reason[i];
      for (const auto& [label, n] : by_label) EXPECT_LE(n.second, n.first) << label;
    }
    const std::optional<sass::Loop> loop = sass::find_step_loop(*fn);
    ASSERT_TRUE(loop);
    const ListingStalls l = attribute_to_lines(
        f, fn->name, {fn->code.begin() + loop->first, fn->code.begin() + loop->last + 1});
    std::uint64_t sum = 0;
    for (const LineStalls& x : l.lines) sum += x.samples;
    EXPECT_EQ(sum, l.on_lines);
    EXPECT_LE(l.on_lines, l.function_samples);
    EXPECT_EQ(l.function_samples, kernel->second);
  }
  EXPECT_GE(files, 1);
}

// ---- The sampler on a faked CUPTI ----

struct FakePc {
  int starts = 0, stops = 0, enables = 0, disables = 0, releases = 0;
  bool running = false;
  int period = 0;
  std::deque<Buffer> to_read;  // what the next GetData calls hand over
};
FakePc& fake() {
  static FakePc f;
  return f;
}

CuptiFunctions fake_pc() {
  CuptiFunctions f;
  f.cu_init = [](unsigned) { return CUDA_SUCCESS; };
  f.cu_device = [](CUdevice* d, int i) {
    *d = i;
    return CUDA_SUCCESS;
  };
  f.cu_retain = [](CUcontext* c, CUdevice) {
    *c = reinterpret_cast<CUcontext>(32);
    return CUDA_SUCCESS;
  };
  f.cu_release = [](CUdevice) {
    ++fake().releases;
    return CUDA_SUCCESS;
  };
  f.pc_enable = [](CUpti_PCSamplingEnableParams*) {
    ++fake().enables;
    return CUPTI_SUCCESS;
  };
  f.pc_disable = [](CUpti_PCSamplingDisableParams*) {
    ++fake().disables;
    return CUPTI_SUCCESS;
  };
  f.pc_reason_count = [](CUpti_PCSamplingGetNumStallReasonsParams* p) {
    *p->numStallReasons = 3;
    return CUPTI_SUCCESS;
  };
  f.pc_reasons = [](CUpti_PCSamplingGetStallReasonsParams* p) {
    const char* names[] = {"smsp__pcsamp_warps_issue_stalled_selected",
                           "smsp__pcsamp_warps_issue_stalled_dispatch_stall",
                           "smsp__pcsamp_warps_issue_stalled_dispatch_stall_not_issued"};
    const std::uint32_t index[] = {3, 7, 8};
    for (std::size_t i = 0; i < p->numStallReasons; ++i) {
      std::strncpy(p->stallReasons[i], names[i], CUPTI_STALL_REASON_STRING_SIZE - 1);
      p->stallReasonIndex[i] = index[i];
    }
    return CUPTI_SUCCESS;
  };
  f.pc_configure = [](CUpti_PCSamplingConfigurationInfoParams* p) {
    for (std::size_t i = 0; i < p->numAttributes; ++i) {
      CUpti_PCSamplingConfigurationInfo& a = p->pPCSamplingConfigurationInfo[i];
      a.attributeStatus = CUPTI_SUCCESS;
      if (a.attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD)
        fake().period = static_cast<int>(a.attributeData.samplingPeriodData.samplingPeriod);
    }
    return CUPTI_SUCCESS;
  };
  f.pc_start = [](CUpti_PCSamplingStartParams*) {
    ++fake().starts;
    fake().running = true;
    return CUPTI_SUCCESS;
  };
  f.pc_stop = [](CUpti_PCSamplingStopParams*) {
    ++fake().stops;
    fake().running = false;
    return CUPTI_SUCCESS;
  };
  // Hands over the next buffer, each record's name allocated as CUPTI does (the sampler frees it).
  f.pc_data = [](CUpti_PCSamplingGetDataParams* p) {
    auto* d = static_cast<CUpti_PCSamplingData*>(p->pcSamplingData);
    d->totalNumPcs = d->remainingNumPcs = 0;
    if (fake().to_read.empty()) return CUPTI_SUCCESS;
    const Buffer b = fake().to_read.front();
    fake().to_read.pop_front();
    d->rangeId = b.range;
    d->totalSamples = b.total;
    d->droppedSamples = b.dropped;
    d->nonUsrKernelsTotalSamples = b.non_user;
    d->remainingNumPcs = b.remaining;
    d->hardwareBufferFull = b.full;
    d->totalNumPcs = std::min(b.pcs.size(), d->collectNumPcs);
    for (std::size_t i = 0; i < d->totalNumPcs; ++i) {
      CUpti_PCSamplingPCData& r = d->pPcData[i];
      r.pcOffset = b.pcs[i].offset;
      r.functionName = strdup(b.pcs[i].function.c_str());
      r.stallReasonCount = b.pcs[i].states.size();
      for (std::size_t j = 0; j < b.pcs[i].states.size(); ++j)
        r.stallReason[j] = {b.pcs[i].states[j].first, b.pcs[i].states[j].second};
    }
    return CUPTI_SUCCESS;
  };
  return f;
}

std::unique_ptr<PcSampler> faked(std::optional<Fault> fault = std::nullopt) {
  fake() = FakePc{};
  PcSamplerOptions o;
  o.period_log2 = 14;
  o.fault = std::move(fault);
  return std::make_unique<PcSampler>(o, std::make_unique<Cupti>(fake_pc()));
}

Buffer one_range(std::uint64_t range) {
  Buffer b;
  b.range = range;
  b.total = 100;
  b.pcs.push_back({0, 0x460, 0, {{3, 60}, {7, 40}, {8, 10}}, kKernel});
  return b;
}

TEST(PcSampler, AReadingIsOneRangesRecords) {
  {
    auto s = faked();
    ASSERT_EQ(s->unavailable(), "");
    EXPECT_EQ(fake().enables, 1);
    EXPECT_EQ(fake().period, 14);
    EXPECT_NE(s->description().find("2^14 cycles"), std::string::npos) << s->description();
    fake().to_read = {one_range(1)};
    const std::uint64_t id = s->begin();
    EXPECT_TRUE(fake().running);
    s->end(id, 1000);
    EXPECT_FALSE(fake().running);
    const std::optional<CounterFigures> f = s->take(id, true);
    ASSERT_TRUE(f && f->stalls) << (f ? f->unavailable : "none");
    EXPECT_EQ(f->samples, 100);
    EXPECT_EQ(f->stalls->samples_in(kKernel), 100u);
    EXPECT_EQ(summarize(*f->stalls).not_issued, 10u);
    // A reading too large for one read comes in two; CUPTI's counts once.
    Buffer a = one_range(2), b = one_range(2);
    a.remaining = 1;
    b.pcs[0].offset = 0x470;
    fake().to_read = {a, b};
    const std::uint64_t id2 = s->begin();
    s->end(id2, 1000);
    const std::optional<CounterFigures> g = s->take(id2, true);
    ASSERT_TRUE(g && g->stalls);
    EXPECT_EQ(g->stalls->pcs.size(), 2u);
    EXPECT_EQ(g->stalls->cupti_total, 100u);
    EXPECT_FALSE(s->take(99, true)->unavailable.empty()) << "no range around it";
  }
  // Everything given back: disabled, the context released (the names freed: ASan's pass).
  EXPECT_EQ(fake().disables, 1);
  EXPECT_EQ(fake().releases, 1);
}

TEST(PcSampler, EveryStepThatCanRefuseSaysWhyInOneLine) {
  for (const char* step : PcSampler::steps()) {
    SCOPED_TRACE(step);
    auto s = faked(Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES});
    fake().to_read = {one_range(1)};
    const std::uint64_t id = s->begin();
    s->end(id, 1000);
    const std::optional<CounterFigures> f = s->take(id, true);
    ASSERT_TRUE(f);
    EXPECT_FALSE(f->stalls) << "no figures after a refusal";
    EXPECT_NE(f->unavailable.find("Stall reasons (CUPTI PC sampling) need profiling permission"),
              std::string::npos)
        << f->unavailable;
    EXPECT_NE(s->unavailable().find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
    EXPECT_NE(s->unavailable().find(step), std::string::npos) << s->unavailable();
    EXPECT_EQ(s->unavailable().find('\n'), std::string::npos) << "one line";
    // (An injected stop does not reach the fake, which then still runs.)
    if (std::string(step) != "pc stop") EXPECT_FALSE(fake().running) << "no range left running";
  }
}

TEST(PcSampler, OtherRefusalsSayWhatToDo) {
  const struct {
    const char* step;
    CUptiResult result;
    const char* says;
  } cases[] = {
      {"pc enable", CUPTI_ERROR_HARDWARE_BUSY, "held by another profiler"},
      {"pc enable", CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "held by another profiler"},
      {"pc enable", CUPTI_ERROR_NOT_SUPPORTED, "this GPU or its mode has no PC sampling"},
      {"pc stall reasons", CUPTI_ERROR_NOT_SUPPORTED, "no PC sampling"},
      {"pc enable", CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, "WSL"},
      {"context", CUPTI_ERROR_NOT_INITIALIZED, "driver is too old"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.step);
    auto s = faked(Fault{c.step, c.result});
    EXPECT_NE(s->unavailable().find(c.says), std::string::npos) << s->unavailable();
    EXPECT_NE(s->unavailable().find("showing none"), std::string::npos);
  }
}

TEST(PcSampler, NoLibraryOrNoDriverSaysSo) {
  PcSamplerOptions o;
  o.library = "libcupti-that-is-not-there.so";
  PcSampler none(o);
  EXPECT_NE(none.unavailable().find("libcupti not found"), std::string::npos) << none.unavailable();
  CuptiFunctions f = fake_pc();
  f.cu_retain = nullptr;  // no libcuda loaded
  PcSampler no_driver(PcSamplerOptions{}, std::make_unique<Cupti>(f));
  EXPECT_NE(no_driver.unavailable().find("libcuda.so.1"), std::string::npos)
      << no_driver.unavailable();
  const std::uint64_t id = no_driver.begin();
  no_driver.end(id, 1);
  EXPECT_FALSE(no_driver.take(id, true)->unavailable.empty());
}

}  // namespace
}  // namespace mp::counters
