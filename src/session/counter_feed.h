// The GPU's own counters: the pipe counters (CUPTI PM sampling) for the commands that measure,
// bench's stall reasons (CUPTI PC sampling), and the window's feed of either: the sampler, the
// frames launched whose figures are not in yet, and the newest figures with their frame.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "counters/counter_sources.h"
#include "counters/pc_sampler.h"
#include "counters/pm_sampler.h"
#include "gpu_renderer.h"
#include "model/counter_figures.h"
#include "session/frame_report.h"

namespace mp {

// bench's and experiment's counters (--counters), each launch with the GPU idle around it so
// that its samples are its own; null when not asked for. Where they cannot be read, one line
// on stderr says why, and the rows say n/a with the reason.
// The sampler comes with the further counter sources (src/counters/counter_sources.h).
// interval_us: --counter-interval (0: the default).
std::unique_ptr<CounterProbe> start_counters(bool asked, int interval_us, const DeviceInfo& d);
// bench's stall reasons (--stalls, `asked`): CUPTI PC sampling, in a run without PM sampling
// (--counters: the options refuse the two together); null when not asked for. Where they cannot
// be read, one line on stderr says why, and the tables say n/a with it.
std::unique_ptr<counters::PcSampler> start_stalls(bool asked, const DeviceInfo& d);

class CounterFeed {
 public:
  // Starts PM sampling of device `device_index` every `interval_us` (0: the window's default),
  // or PC sampling instead where `stalls` (never both: pc_sampler.h); says on stderr when it
  // cannot be had.
  void start(int device_index, int interval_us, bool stalls);
  // Null when not started (no GPU, --no-counters, --stalls).
  counters::PmSampler* sampler() const { return sampler_; }
  // The sampler with the further sources: what measured work outside the frames reads.
  CounterProbe* probe() const { return probes_.get(); }
  bool refused() const { return sampler_ && !sampler_->unavailable().empty(); }
  bool stalls_refused() const { return stall_sampler_ && !stall_sampler_->unavailable().empty(); }

  // Whether anything shows the stall reasons (the overlay, the SASS view): PC sampling reads
  // frames only while something does.
  void want_stalls(bool wanted) { stalls_wanted_ = wanted; }

  // Around frame `frame`'s launches: begin() before the first, which opens a reading where the
  // samplers read this frame (PM sampling one in a few, as its duty cycle keeps its CPU low; PC
  // sampling one every quarter of a second at most) and says so; end() after the last, with
  // their SM cycles summed; drop() instead where the frame is given up unfinished (its figures
  // never show).
  std::optional<std::uint64_t> begin();
  void end(std::uint64_t reading, long long frame, double sm_cycles);
  void drop(std::uint64_t reading);
  // What the model's step loop accounts for in frame `frame`, for withhold_short_counts.
  void modelled(long long frame, double instructions);
  // Takes the newest figures the samplers have finished; true if there were new ones.
  bool take();
  // Frame `frame`'s report made whole, once: on the CUDA path the counters are told what its
  // model accounts for and their newest figures taken; those figures go into it either way.
  std::shared_ptr<const FrameReport> complete(FrameReport report, long long frame);

  const std::optional<CounterFigures>& figures() const { return figures_; }
  long long frame() const { return frame_; }  // of figures(); -1 before any
  // Where the figures come from, or why there are none; brief: the overlay's short form.
  // `gpu`: the CUDA path is in use; `frames_done`: for how long ago the figures are.
  std::string source(bool brief, bool gpu, long long frames_done) const;

  // The newest stall reading (its `stalls` set, or `unavailable` saying why not), and its frame.
  const std::optional<CounterFigures>& stalls() const { return stalls_; }
  // Its samples per reason over every kernel of the frame (summed once, as it came).
  const StallSummary& stalls_summary() const { return stalls_summary_; }
  long long stalls_frame() const { return stalls_frame_; }
  // Where the stall reasons come from, or why there are none, in one line.
  std::string stalls_source(bool gpu, long long frames_done) const;

 private:
  struct Reading {
    std::uint64_t reading = 0;
    long long frame = 0;
    double modelled_instructions = 0;
    bool dropped = false;
  };
  // Whether PC sampling reads the frame about to start.
  bool stall_reading_due() const;
  void close(std::uint64_t reading, long long frame, double sm_cycles, bool dropped);

  // The sampler and the further counter sources beside it (src/counters/counter_sources.h).
  std::unique_ptr<counters::ProbeSet> probes_;
  counters::PmSampler* sampler_ = nullptr;  // the first of probes_
  std::unique_ptr<counters::PcSampler> stall_sampler_;
  bool stalls_wanted_ = false;
  std::chrono::steady_clock::time_point last_stall_reading_;
  // The feed's readings: PM sampling's or PC sampling's.
  struct Open {
    std::optional<std::uint64_t> pm, pc;
  };
  std::uint64_t next_reading_ = 0;
  std::map<std::uint64_t, Open> open_;
  std::deque<Reading> readings_, stall_readings_;
  std::optional<CounterFigures> figures_, stalls_;
  StallSummary stalls_summary_;
  long long frame_ = -1, stalls_frame_ = -1;
};

}  // namespace mp
