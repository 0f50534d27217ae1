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

std::shared_ptr<const FrameReport> CounterFeed::complete(FrameReport r, long long frame) {
  if (r.metrics) {
    modelled(frame, r.comparable_instructions());
    r.counters_fresh = take();
  }
  r.counters = figures_;
  r.counters_frame = frame_;
  return std::make_shared<const FrameReport>(std::move(r));
}

void CounterFeed::start(int device_index, int interval_us) {
  counters::SamplerOptions so;
  so.device_index = device_index;
  // For tests and screenshots of the refusal banner: CUPTI is made to answer "insufficient
  // privileges" at the named step (one of PmSampler::steps()).
  if (const char* step = std::getenv("MANDELPIPE_COUNTERS_REFUSE"))
    so.fault = counters::Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES};
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

std::optional<std::uint64_t> CounterFeed::begin() {
  if (!probes_ || !sampler_->read_frame()) return std::nullopt;
  return probes_->begin();
}

void CounterFeed::end(std::uint64_t reading, long long frame, double sm_cycles) {
  if (!probes_) return;
  probes_->end(reading, sm_cycles);
  readings_.push_back({reading, frame, 0});
}

void CounterFeed::drop(std::uint64_t reading) {
  if (!probes_) return;
  probes_->end(reading, 0);
  readings_.push_back({reading, -1, 0, true});
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

}  // namespace mp
