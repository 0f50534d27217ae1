// The GPU's own pipe counters, read live: CUPTI's PM sampling on a worker thread (decode,
// evaluate, attribute to launches by time, hand over), never blocking the launching thread
// longer than sampling takes to start.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "counters/attribution.h"
#include "counters/cupti_api.h"
#include "counters/cupti_handles.h"
#include "counters/metric_choice.h"
#include "counters/sampling_policy.h"
#include "model/counter_figures.h"

namespace mp::counters {

struct SamplerOptions {
  int device_index = 0;
  // PM sampling interval. Each sample over a launch costs the counter thread ~45 us of CPU to
  // evaluate; where it falls behind and samples are lost, the interval doubles (to 3.2 ms).
  unsigned interval_us = 200;
  // Keep each launch's edge samples its own: begin() leaves the GPU idle for a few intervals
  // first (bench and experiments; the window's frames are apart anyway).
  bool isolate = false;
  // Sample only around the frames read_frame() picks, as many as `duty` allows, and around the
  // launches begin() is asked for (the window); otherwise all the time (bench, experiments).
  bool on_demand = false;
  DutyCycle::Settings duty;
  std::optional<Fault> fault;  // tests: fail at this step
  std::string library;         // tests: the CUPTI library to open instead of the toolkit's
  // Diagnostics: each decode round, renewal, start and stop and attribution, one line each.
  std::function<void(const std::string&)> trace;
};

class PmSampler final : public CounterProbe {
 public:
  // Never throws: where counters cannot be had, unavailable() says why and the rest of the
  // program runs on the model. cupti: the library to use (tests), else loaded here.
  explicit PmSampler(const SamplerOptions& o, std::unique_ptr<Cupti> cupti = nullptr);
  ~PmSampler() override;
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  std::string unavailable() const override;
  // Where sampling is stopped (on demand) it starts it, and waits until its samples count.
  std::uint64_t begin() override;
  void end(std::uint64_t launch, double sm_cycles) override;
  std::optional<CounterFigures> take(std::uint64_t launch, bool wait) override;

  // A frame starts: whether to read it (then begin() at once). On demand, by the duty cycle,
  // which arms sampling for the frame it picks next; otherwise every frame.
  bool read_frame();

  // Stops (true) or restarts (false) the sampling itself: what --counters-ab times against.
  void pause(bool paused);

  // "CUPTI PM sampling on GH100: 10 metrics in one pass, every 50 us" (or two alternating).
  std::string description() const;
  const MetricChoice& choice() const { return choice_; }
  // The worker's CPU time over wall time: what reading the counters costs a core, since the
  // start (whole) or over the last second or so.
  double worker_cpu_share(bool whole) const;
  // Every step of the start-up and the worker at which CUPTI can refuse, in order (tests).
  static const std::vector<const char*>& steps();

 private:
  using Clock = std::chrono::steady_clock;
  struct Pending {
    std::uint64_t id = 0;
    std::uint64_t t0 = 0, t1 = 0;  // CUPTI time around the launch (t1 = 0: not ended)
    double sm_cycles = 0;
    Clock::time_point begun, ended;
  };
  bool start_up();
  bool fail(const char* step, CUptiResult r);
  // (Re)starts sampling with `configuration` at the interval in force; its samples count from
  // one interval on.
  bool configure(int configuration);
  void run_worker();
  // One round of the worker: start or stop sampling as planned, read, attribute; false when
  // CUPTI failed. *wake: when the next round is due (Clock::time_point::max(): when woken).
  bool work(Clock::time_point* wake);
  bool decode();  // new samples into samples_; false when CUPTI failed (unavailable_ set)
  // Renews the counter data image where renewal() says so (fill_ and the launches pending).
  void renew_if_due();
  void attribute_ready();
  // The first start and last end of `p`'s kernels by their records (0, 0: none yet); mutex_ held.
  std::pair<std::uint64_t, std::uint64_t> kernel_span(const Pending& p) const;
  void finish(std::uint64_t id, CounterFigures f);
  std::uint64_t now() const;
  double seconds(Clock::time_point t) const;  // since the start, for the duty cycle

  SamplerOptions opts_;
  std::unique_ptr<Cupti> cupti_;
  MetricChoice choice_;
  std::vector<std::uint8_t> availability_;
  std::vector<std::vector<std::uint8_t>> configs_;       // config image per configuration
  std::vector<std::vector<std::string>> metric_names_;   // full names per configuration
  std::vector<std::vector<std::uint8_t>> counter_data_;  // counter data image per configuration
  // Each configuration's image as CUPTI initialised it once: a renewal copies it, far cheaper
  // than initialising again (~9 us per sample of room).
  std::vector<std::vector<std::uint8_t>> blank_data_;
  std::vector<std::unique_ptr<HostObject>> evaluators_;  // per configuration
  int configuration_ = 0;
  std::size_t next_index_ = 0;  // first sample of the counter data image not yet read
  bool drop_next_ = true;       // the first sample after a start spans the time before it
  // Samples begun before this (CUPTI time) may have had records in an image renewed since (or
  // in a run stopped since): not read.
  std::uint64_t discard_before_ = 0;
  std::uint64_t read_until_ = 0;  // the end of the last sample decoded
  ImageFill fill_;                // the image after the last decode
  Clock::time_point started_, last_switch_;

  std::atomic<bool> paused_{false};
  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::string unavailable_;
  std::uint64_t next_id_ = 0;
  std::map<std::uint64_t, Pending> pending_;
  std::map<std::uint64_t, CounterFigures> results_;
  std::deque<KernelTimes> kernels_;  // from activity records, oldest first
  std::atomic<double> worker_cpu_s_{0};
  std::atomic<double> recent_cpu_share_{0};
  bool switching_ = false;
  int overflows_ = 0;  // decodes that lost samples (hardware buffer overwritten, image full)
  bool lost_ = false;  // worker: the last decode lost samples
  std::atomic<unsigned> interval_us_{0};  // in force: the option's, or doubled since
  std::atomic<unsigned> sampled_us_{0};   // the last decoded sample's length
  bool stop_ = false;
  bool poke_ = false;      // wake the worker now: a launch ended, a frame or begin() wants sampling
  bool sleeping_ = false;  // the worker waits to be woken, with no time set
  bool sampling_ = false;  // sampling runs (the worker's run_, for the other threads)
  Clock::time_point settled_at_;  // from when samples count: one interval past a start or cut
  bool promised_ = false;         // read_frame() picked a frame; its begin() comes next
  int waiting_ = 0;               // begin() calls waiting for sampling to count
  DutyCycle duty_;

  std::vector<PmSample> samples_;  // worker only: decoded, not yet past every pending launch
  // CUPTI's resources, given back in the reverse order: sampling stops, then the activity
  // records go, then the sampler.
  std::optional<PmSamplingObject> pm_;
  std::optional<KernelActivity> activity_;
  std::optional<SamplingRun> run_;  // worker only: sampling runs while it holds one
  std::thread worker_;
};

}  // namespace mp::counters
