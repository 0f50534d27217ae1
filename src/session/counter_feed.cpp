#include "session/counter_feed.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <utility>

namespace mp {
namespace {

// PM sampling interval in the window: decoding costs the counter thread some 60 us of CPU per
// sample whether the GPU is busy or not, 40% of a core at 200 us sampling all the time
// (docs/measurements.md), so it samples only around the frames it reads, as many as its duty
// cycle's budget allows; `--counter-interval` trades fewer readings against finer samples.
constexpr unsigned kWindowCounterInterval = 200;
// PC sampling in the window: a warp every 2^17 cycles of each SM (at 1.7 GHz one every 77 us,
// some 400 an SM over a frame of 30 ms) and a reading every quarter of a second at most, whose
// stop and read run on the window's thread.
constexpr int kWindowStallPeriod = 17;
constexpr auto kStallGap = std::chrono::milliseconds(250);

// A fault for tests and screenshots of the refusal lines: CUPTI is made to answer "insufficient
// privileges" at the step `variable` names.
std::optional<counters::Fault> refusal_from(const char* variable) {
  if (const char* step = std::getenv(variable))
    return counters::Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES};
  return std::nullopt;
}

}  // namespace

std::unique_ptr<CounterProbe> start_counters(bool asked, int interval_us, const DeviceInfo& d) {
  if (!asked) return nullptr;
  counters::SamplerOptions so;
  so.device_index = d.index;
  // Isolated launches make each edge sample the launch's own, so a coarser interval loses
  // nothing, and it keeps the counter thread (~45 us of CPU to evaluate a sample) ahead of
  // long kernels, whose samples it must read before the hardware buffer overwrites them.
  so.interval_us = interval_us > 0 ? static_cast<unsigned>(interval_us) : 200;
  so.isolate = true;
  if (std::getenv("MANDELPIPE_COUNTERS_TRACE"))
    so.trace = [](const std::string& line) { std::cerr << "counters: " << line << "\n"; };
  auto s = std::make_unique<counters::PmSampler>(so);
  if (!s->unavailable().empty())
    std::cerr << "mandelpipe: " << s->unavailable() << "\n";
  else
    std::cerr << "mandelpipe: " << s->description() << "\n";
  return std::make_unique<counters::ProbeSet>(std::move(s), counters::further_sources(d.index));
}

std::unique_ptr<counters::PcSampler> start_stalls(bool asked, const DeviceInfo& d) {
  if (!asked) return nullptr;
  counters::PcSamplerOptions po;
  po.device_index = d.index;
  // A warp every 2^15 cycles of each SM: at 1.7 GHz, one every 19 us, some 5,000 an SM over a
  // frame of 100 ms (the figures say how many came).
  po.period_log2 = 15;
  if (std::getenv("MANDELPIPE_STALLS_TRACE"))
    po.trace = [](const std::string& line) { std::cerr << "stalls: " << line << "\n"; };
  if (const char* file = std::getenv("MANDELPIPE_STALLS_RECORD")) po.record_to = file;
  if (const char* step = std::getenv("MANDELPIPE_STALLS_REFUSE"))
    po.fault = counters::Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES};
  auto s = std::make_unique<counters::PcSampler>(po);
  std::cerr << "mandelpipe: " << (s->unavailable().empty() ? s->description() : s->unavailable())
            << "\n";
  return s;
}

std::shared_ptr<const FrameReport> CounterFeed::complete(FrameReport r, long long frame) {
  if (r.metrics) {
    modelled(frame, r.comparable_instructions());
    r.counters_fresh = take();
  }
  r.counters = figures_;
  r.counters_frame = frame_;
  return std::make_shared<const FrameReport>(std::move(r));
}

void CounterFeed::start(int device_index, int interval_us, bool stalls) {
  // One or the other: CUPTI's PC and PM sampling cannot share a process (pc_sampler.h).
  if (stalls) {
    counters::PcSamplerOptions po;
    po.device_index = device_index;
    po.period_log2 = kWindowStallPeriod;
    po.fault = refusal_from("MANDELPIPE_STALLS_REFUSE");  // one of PcSampler::steps()
    if (std::getenv("MANDELPIPE_STALLS_TRACE"))
      po.trace = [](const std::string& line) { std::cerr << "stalls: " << line << "\n"; };
    if (const char* file = std::getenv("MANDELPIPE_STALLS_RECORD")) po.record_to = file;
    stall_sampler_ = std::make_unique<counters::PcSampler>(po);
    if (!stall_sampler_->unavailable().empty())
      std::cerr << "mandelpipe: " << stall_sampler_->unavailable() << "\n";
    return;
  }
  counters::SamplerOptions so;
  so.device_index = device_index;
  so.fault = refusal_from("MANDELPIPE_COUNTERS_REFUSE");  // one of PmSampler::steps()
  if (std::getenv("MANDELPIPE_COUNTERS_TRACE"))
    so.trace = [](const std::string& line) { std::cerr << "counters: " << line << "\n"; };
  so.interval_us = interval_us > 0 ? static_cast<unsigned>(interval_us) : kWindowCounterInterval;
  so.on_demand = true;
  auto sampler = std::make_unique<counters::PmSampler>(so);
  sampler_ = sampler.get();
  probes_ = std::make_unique<counters::ProbeSet>(std::move(sampler),
                                                 counters::further_sources(device_index));
  if (!sampler_->unavailable().empty())
    std::cerr << "mandelpipe: " << sampler_->unavailable() << "\n";
}

bool CounterFeed::stall_reading_due() const {
  return stall_sampler_ && stalls_wanted_ && stall_sampler_->unavailable().empty() &&
         std::chrono::steady_clock::now() - last_stall_reading_ >= kStallGap;
}

std::optional<std::uint64_t> CounterFeed::begin() {
  Open o;
  if (probes_ && sampler_->read_frame()) o.pm = probes_->begin();
  if (stall_reading_due()) o.pc = stall_sampler_->begin();
  if (o.pc) last_stall_reading_ = std::chrono::steady_clock::now();
  if (!o.pm && !o.pc) return std::nullopt;
  open_[++next_reading_] = o;
  return next_reading_;
}

void CounterFeed::close(std::uint64_t reading, long long frame, double sm_cycles, bool dropped) {
  const auto it = open_.find(reading);
  if (it == open_.end()) return;
  const Open o = it->second;
  open_.erase(it);
  if (o.pc) {
    stall_sampler_->end(*o.pc, sm_cycles);
    stall_readings_.push_back({*o.pc, frame, 0, dropped});
  }
  if (o.pm) {
    probes_->end(*o.pm, sm_cycles);
    readings_.push_back({*o.pm, frame, 0, dropped});
  }
}

void CounterFeed::end(std::uint64_t reading, long long frame, double sm_cycles) {
  close(reading, frame, sm_cycles, false);
}

void CounterFeed::drop(std::uint64_t reading) {
  close(reading, -1, 0, true);
}

void CounterFeed::modelled(long long frame, double instructions) {
  if (!readings_.empty() && readings_.back().frame == frame)
    readings_.back().modelled_instructions = instructions;
}

bool CounterFeed::take() {
  bool fresh = false;
  while (probes_ && !readings_.empty()) {
    const Reading& r = readings_.front();
    std::optional<CounterFigures> f = probes_->take(r.reading, false);
    if (!f) break;  // the oldest is not in yet; the newer ones come after it
    if (r.dropped) {
      readings_.pop_front();
      continue;
    }
    withhold_short_counts(*f, r.modelled_instructions);
    figures_ = std::move(f);
    frame_ = r.frame;
    readings_.pop_front();
    fresh = true;
  }
  // Readings the sampler gave up on are dropped with it, not kept forever.
  while (readings_.size() > 64) readings_.pop_front();
  // PC sampling's are read as they end.
  for (; !stall_readings_.empty(); stall_readings_.pop_front()) {
    const Reading& r = stall_readings_.front();
    std::optional<CounterFigures> f = stall_sampler_->take(r.reading, false);
    if (r.dropped || !f) continue;
    stalls_ = std::move(f);
    stalls_summary_ = stalls_->stalls ? summarize(*stalls_->stalls) : StallSummary{};
    stalls_frame_ = r.frame;
    fresh = true;
  }
  return fresh;
}

std::string CounterFeed::source(bool brief, bool gpu, long long frames_done) const {
  if (!gpu) return "counters: need the CUDA path";
  if (stall_sampler_)
    return brief ? "counters: off while --stalls samples PCs"
                 : "counters: off while --stalls samples PCs (CUPTI's PM and PC sampling cannot "
                   "share a process here)";
  if (!sampler_) return "counters: off (--no-counters)";
  if (!sampler_->unavailable().empty()) return sampler_->unavailable();
  // The overlay's line is short (it is drawn every frame); the panel has the whole source.
  std::string s =
      "counters: " + (brief ? std::string("CUPTI PM sampling") : sampler_->description());
  if (frame_ >= 0)
    s +=
        "; frame " + std::to_string(frame_) + " (" + std::to_string(frames_done - frame_) + " ago)";
  if (brief) return s;
  char cpu[64];
  std::snprintf(cpu, sizeof cpu, "; reading them took %.0f%% of a CPU core over the last second",
                100 * sampler_->worker_cpu_share(false));
  return s + cpu;
}

std::string CounterFeed::stalls_source(bool gpu, long long frames_done) const {
  if (!gpu) return "stall reasons: need the CUDA path";
  if (!stall_sampler_)
    return "stall reasons: start the window with --stalls (CUPTI PC sampling, in the counters' "
           "place: the two cannot share a process here)";
  if (!stall_sampler_->unavailable().empty()) return stall_sampler_->unavailable();
  std::string s = "stall reasons: " + stall_sampler_->description();
  if (stalls_frame_ >= 0)
    s += "; frame " + std::to_string(stalls_frame_) + " (" +
         std::to_string(frames_done - stalls_frame_) + " ago)";
  else if (!stalls_wanted_)
    s += "; read while the overlay or the SASS view shows";
  return s;
}

}  // namespace mp
