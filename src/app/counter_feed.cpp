#include "app/counter_feed.h"

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

void CounterFeed::start(int device_index, int interval_us, bool stalls) {
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
  if (!stalls) return;
  counters::PcSamplerOptions po;
  po.device_index = device_index;
  po.period_log2 = kWindowStallPeriod;
  po.fault = refusal_from("MANDELPIPE_STALLS_REFUSE");  // one of PcSampler::steps()
  if (std::getenv("MANDELPIPE_STALLS_TRACE"))
    po.trace = [](const std::string& line) { std::cerr << "stalls: " << line << "\n"; };
  if (const char* file = std::getenv("MANDELPIPE_STALLS_RECORD")) po.record_to = file;
  stall_sampler_ = std::make_unique<counters::PcSampler>(po);
  if (pm_usable()) {
    counters::PmSampler* pm = sampler_;
    stall_sampler_->set_partner({[pm] { return pm->sampling(); }, [pm](bool h) { pm->pause(h); }});
  }
  if (!stall_sampler_->unavailable().empty())
    std::cerr << "mandelpipe: " << stall_sampler_->unavailable() << "\n";
}

bool CounterFeed::stall_reading_due(bool pm) const {
  if (!stall_sampler_ || !stalls_wanted_ || !stall_sampler_->unavailable().empty()) return false;
  if (std::chrono::steady_clock::now() - last_stall_reading_ < kStallGap) return false;
  if (!pm_usable()) return true;
  // Beside PM sampling (or until that is known) only within its readings, so that PM sampling
  // never starts under PC sampling; taking turns, only once its readings are all in, so that
  // none is cut short by the hold.
  if (stall_sampler_->sharing() != counters::PcSampler::Sharing::Turns) return pm;
  return readings_.empty() && open_.empty();
}

std::optional<std::uint64_t> CounterFeed::begin() {
  if (!probes_) return std::nullopt;
  Open o;
  const bool turns =
      stall_sampler_ && stall_sampler_->sharing() == counters::PcSampler::Sharing::Turns;
  // Taking turns, a frame PC sampling reads is not offered to PM sampling, whose duty cycle
  // would arm sampling for it.
  if (turns && stall_reading_due(false)) {
    o.pc = stall_sampler_->begin();
  } else {
    if (sampler_->read_frame()) o.pm = probes_->begin();
    // Nested in PM sampling's reading: started after it, stopped before it.
    if (!turns && stall_reading_due(o.pm.has_value())) o.pc = stall_sampler_->begin();
  }
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
  if (!sampler_) return "stall reasons: off (--no-counters)";
  if (!stall_sampler_) return "stall reasons: off (--no-stalls)";
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
