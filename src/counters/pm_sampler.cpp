#include "counters/pm_sampler.h"

#include <time.h>

#include <algorithm>
#include <tuple>
#include <utility>

namespace mp::counters {
namespace {

// Samples per counter data image. A decode that fills the image drops the records it has no
// room for, so the image is renewed early (renewal()); this many hold the launches of a bench
// view at 4K (ten frames of 55 ms, 2,750 samples at 200 us) without a renewal among them.
constexpr std::uint32_t kImageSamples = 4096;
constexpr std::size_t kHardwareBuffer = 128u << 20;
constexpr unsigned kMaxIntervalUs = 3200;
// The samples' times are the GPU's, put on the host's clock by CUPTI: a launch's bracket and the
// moment samples count again after a start or a cut keep this much either side.
constexpr std::uint64_t kMarginNs = 100000;
// The worker's rounds: sampling all the time, every 10 ms; on demand, while a launch runs,
// every 25 ms (the image's half fills in about 100 ms at the window's interval), and once one
// has ended, every 4 ms until its samples and kernel records are in; otherwise when the duty
// cycle plans to start sampling, or when woken.
constexpr auto kRound = std::chrono::milliseconds(10);
constexpr auto kRunningRound = std::chrono::milliseconds(25);
constexpr auto kEndedRound = std::chrono::milliseconds(4);

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

const std::vector<const char*>& PmSampler::steps() {
  static const std::vector<const char*> s = {"profiler initialize",
                                             "chip name",
                                             "counter availability",
                                             "host initialize",
                                             "base metrics",
                                             "add metrics",
                                             "config image size",
                                             "config image",
                                             "passes",
                                             "enable",
                                             "set config",
                                             "counter data size",
                                             "counter data initialize",
                                             "activity",
                                             "start",
                                             "decode",
                                             "sample info",
                                             "evaluate"};
  return s;
}

PmSampler::PmSampler(const SamplerOptions& o, std::unique_ptr<Cupti> cupti)
    : opts_(o), cupti_(std::move(cupti)), duty_(o.duty) {
  if (!cupti_) {
    std::string why;
    cupti_ = Cupti::load(&why, opts_.library);
    if (!cupti_) {
      unavailable_ = "Hardware counters unavailable: " + why + "; showing the model only";
      return;
    }
  }
  cupti_->inject(opts_.fault);
  interval_us_ = opts_.interval_us;
  started_ = last_switch_ = Clock::now();
  if (!start_up()) return;
  worker_ = std::thread([this] { run_worker(); });
}

PmSampler::~PmSampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  done_.notify_all();
  if (worker_.joinable()) worker_.join();
  // run_, activity_ and pm_ give CUPTI back as they go.
}

bool PmSampler::fail(const char* step, CUptiResult r) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (unavailable_.empty()) unavailable_ = refusal_line(step, r, cupti_->describe(r));  // the first
  return false;
}

std::uint64_t PmSampler::now() const {
  uint64_t t = 0;
  if (cupti_ && cupti_->functions().timestamp) cupti_->functions().timestamp(&t);
  return t;
}

double PmSampler::seconds(Clock::time_point t) const {
  return std::chrono::duration<double>(t - started_).count();
}

bool PmSampler::start_up() {
  const Cupti& c = *cupti_;
  const CuptiFunctions& f = c.functions();
  auto ip =
      make_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  CUptiResult r = c.call("profiler initialize", f.profiler_initialize, &ip);
  if (r != CUPTI_SUCCESS) return fail("profiler initialize", r);
  auto cn =
      make_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  cn.deviceIndex = static_cast<size_t>(opts_.device_index);
  r = c.call("chip name", f.chip_name, &cn);
  if (r != CUPTI_SUCCESS) return fail("chip name", r);
  const std::string chip = cn.pChipName ? cn.pChipName : "";
  auto av = make_params<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  av.deviceIndex = cn.deviceIndex;
  r = c.call("counter availability", f.availability, &av);
  if (r != CUPTI_SUCCESS) return fail("counter availability", r);
  availability_.resize(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = availability_.data();
  r = c.call("counter availability", f.availability, &av);
  if (r != CUPTI_SUCCESS) return fail("counter availability", r);

  choice_ = choose_metrics(c, chip, availability_);
  if (choice_.failure) return fail(choice_.failure.step.c_str(), choice_.failure.result);
  if (!choice_.error.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    unavailable_ = "Hardware counters unavailable on " + chip + ": " + choice_.error +
                   "; showing the model only";
    return false;
  }
  for (const auto& set : choice_.configurations) {
    std::vector<std::string> names;
    for (const ChosenMetric& m : set) names.push_back(m.metric);
    CuptiFailure failure;
    configs_.push_back(config_image(c, chip, availability_, names, &failure));
    if (configs_.back().empty()) return fail(failure.step.c_str(), failure.result);
    // A host object of its own to evaluate this configuration's samples with.
    auto& ev = evaluators_.emplace_back(std::make_unique<HostObject>(c, chip, availability_));
    if (!ev->get()) return fail("host initialize", ev->result());
    const CUptiResult er = ev->add(names);
    if (er != CUPTI_SUCCESS) return fail("add metrics", er);
    metric_names_.push_back(std::move(names));
  }

  pm_.emplace(c, cn.deviceIndex);
  if (!pm_->get()) return fail("enable", pm_->result());
  for (std::size_t i = 0; i < configs_.size(); ++i) {
    std::vector<const char*> names;
    for (const std::string& m : metric_names_[i]) names.push_back(m.c_str());
    auto ds = make_params<CUpti_PmSampling_GetCounterDataSize_Params>(
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    ds.pPmSamplingObject = pm_->get();
    ds.pMetricNames = names.data();
    ds.numMetrics = names.size();
    ds.maxSamples = kImageSamples;
    r = c.call("counter data size", f.counter_data_size, &ds);
    if (r != CUPTI_SUCCESS) return fail("counter data size", r);
    counter_data_.emplace_back(ds.counterDataSize);
    blank_data_.emplace_back();
  }
  activity_.emplace(c, [this](std::vector<KernelTimes> got) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Nobody trims them once CUPTI has refused: the worker has stopped.
    if (unavailable_.empty()) kernels_.insert(kernels_.end(), got.begin(), got.end());
  });
  if (activity_->result() != CUPTI_SUCCESS) return fail("activity", activity_->result());
  return configure(0);
}

bool PmSampler::configure(int configuration) {
  const Cupti& c = *cupti_;
  const CuptiFunctions& f = c.functions();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sampling_ = false;
  }
  run_.reset();
  const Clock::time_point asked = Clock::now();
  auto sc =
      make_params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  sc.pPmSamplingObject = pm_->get();
  sc.configSize = configs_[configuration].size();
  sc.pConfig = configs_[configuration].data();
  sc.hardwareBufferSize = kHardwareBuffer;
  sc.samplingInterval = interval_us_ * 1000ull;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
  CUptiResult r = c.call("set config", f.set_config, &sc);
  if (r != CUPTI_SUCCESS) return fail("set config", r);
  std::vector<std::uint8_t>& image = counter_data_[configuration];
  std::vector<std::uint8_t>& blank = blank_data_[configuration];
  if (blank.empty()) {
    auto ci = make_params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    ci.pPmSamplingObject = pm_->get();
    ci.counterDataSize = image.size();
    ci.pCounterData = image.data();
    r = c.call("counter data initialize", f.counter_data_initialize, &ci);
    if (r != CUPTI_SUCCESS) return fail("counter data initialize", r);
    blank = image;
  } else {
    image = blank;
  }
  // What the hardware buffer still holds from before this start is not read.
  discard_before_ = now() + kMarginNs;
  run_.emplace(c, pm_->get());
  if (run_->result() != CUPTI_SUCCESS) {
    r = run_->result();
    run_.reset();
    return fail("start", r);
  }
  const Clock::time_point started = Clock::now();
  if (configuration != configuration_) last_switch_ = started;
  configuration_ = configuration;
  next_index_ = 0;
  fill_ = {};
  drop_next_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sampling_ = true;
    settled_at_ =
        started + std::chrono::microseconds(interval_us_) + std::chrono::nanoseconds(kMarginNs);
    duty_.armed(std::chrono::duration<double>(settled_at_ - asked).count());
  }
  done_.notify_all();
  if (opts_.trace)
    opts_.trace("sampling started at " + std::to_string(discard_before_) + " (configuration " +
                std::to_string(configuration) + ", every " + std::to_string(interval_us_) + " us)");
  return true;
}

void PmSampler::pause(bool paused) {
  // Most calls change nothing; the worker stops or starts the sampling itself.
  if (paused == paused_.load() || !unavailable().empty()) return;
  paused_ = paused;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    poke_ = true;
  }
  wake_.notify_all();
}

std::string PmSampler::unavailable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return unavailable_;
}

std::string PmSampler::description() const {
  if (choice_.configurations.empty()) return "CUPTI PM sampling: not running";
  std::string s = "CUPTI PM sampling on " + choice_.chip + ": ";
  if (choice_.configurations.size() == 1)
    s += std::to_string(choice_.configurations[0].size()) + " metrics in one pass";
  else
    s += "two configurations alternating (no single pass holds every pipe)";
  s += ", every " + std::to_string(interval_us_) + " us";
  if (interval_us_ != opts_.interval_us)
    s += " (raised from " + std::to_string(opts_.interval_us) +
         " us: samples came faster than "
         "this CPU read them)";
  // What the samples themselves span, where it is not what was asked: the H100 kept sampling at
  // its first interval whatever a later set config asked (docs/measurements.md).
  const unsigned seen = sampled_us_;
  if (seen > 0 && (10 * seen < 9 * interval_us_ || 10 * seen > 11 * interval_us_))
    s += ", but its samples span " + std::to_string(seen) + " us";
  if (opts_.on_demand) s += ", only around the frames read";
  if (choice_.fma_from_halves) s += "; FMA = mean of fmaheavy and fmalite";
  if (!choice_.missing.empty()) {
    s += "; none for";
    for (const std::string& m : choice_.missing) s += " " + m;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (overflows_ > 0)
    s += "; samples were lost before they were read " + std::to_string(overflows_) +
         " times (a longer --counter-interval helps)";
  return s;
}

double PmSampler::worker_cpu_share(bool whole) const {
  if (!whole) return recent_cpu_share_;
  const double wall = seconds(Clock::now());
  return wall > 0 ? worker_cpu_s_.load() / wall : 0;
}

bool PmSampler::read_frame() {
  if (!opts_.on_demand) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!unavailable_.empty()) return true;  // its figures carry the reason
  if (paused_) return false;
  const Clock::time_point t = Clock::now();
  promised_ = duty_.offer(seconds(t), sampling_ && !switching_ && t >= settled_at_);
  // A worker asleep until woken plans anew: frames come again.
  if (sleeping_) {
    poke_ = true;
    wake_.notify_all();
  }
  return promised_;
}

std::uint64_t PmSampler::begin() {
  if (opts_.isolate && unavailable().empty()) {
    // A few intervals of idle GPU first: the edge samples hold this launch alone. From now, not
    // from the last launch: work nobody bracketed (warm-ups) may have run since.
    std::this_thread::sleep_for(std::chrono::microseconds(3 * interval_us_ + 20));
  }
  std::unique_lock<std::mutex> lock(mutex_);
  promised_ = false;
  // Sampling runs and its samples count before the launch: where the duty cycle stopped it the
  // worker starts it, and after a start, a switch or a renewal that cut a sample, the first
  // interval is not read. Inserted under the same lock the wait ends in: neither a switch nor a
  // cut (which start only while nothing is pending) can begin between the two.
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(2);
  ++waiting_;
  if (!sampling_) {
    poke_ = true;
    wake_.notify_all();
  }
  for (;;) {
    const Clock::time_point t = Clock::now();
    if (stop_ || paused_ || !unavailable_.empty() || t >= give_up) break;
    if (sampling_ && !switching_ && t >= settled_at_) break;
    done_.wait_until(lock, sampling_ && !switching_ ? std::min(settled_at_, give_up) : give_up);
  }
  --waiting_;
  const std::uint64_t id = ++next_id_;
  if (!unavailable_.empty()) return id;
  Pending p;
  p.id = id;
  p.t0 = now();
  p.begun = Clock::now();
  pending_[id] = p;
  return id;
}

void PmSampler::end(std::uint64_t launch, double sm_cycles) {
  const std::uint64_t t1 = now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(launch);
    if (it == pending_.end()) return;
    it->second.t1 = t1;
    it->second.sm_cycles = sm_cycles;
    it->second.ended = Clock::now();
    poke_ = true;
  }
  wake_.notify_all();
}

std::optional<CounterFigures> PmSampler::take(std::uint64_t launch, bool wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto ready = [&] { return results_.count(launch) > 0 || !pending_.count(launch); };
  if (wait) done_.wait_for(lock, std::chrono::seconds(4), ready);
  auto it = results_.find(launch);
  if (it != results_.end()) {
    CounterFigures f = std::move(it->second);
    results_.erase(it);
    return f;
  }
  if (!unavailable_.empty()) {
    CounterFigures f;
    f.unavailable = unavailable_;
    return f;
  }
  if (!wait) return std::nullopt;
  CounterFigures f;
  f.unavailable = "no counter figures within 4 s of the launch";
  pending_.erase(launch);
  return f;
}

void PmSampler::finish(std::uint64_t id, CounterFigures f) {
  pending_.erase(id);
  results_[id] = std::move(f);
  // Figures nobody took (the window reads only the newest) do not pile up.
  while (results_.size() > 64) results_.erase(results_.begin());
}

bool PmSampler::decode() {
  const Cupti& c = *cupti_;
  const CuptiFunctions& f = c.functions();
  std::vector<std::uint8_t>& image = counter_data_[configuration_];
  for (int round = 0; round < 64; ++round) {
    auto dd = make_params<CUpti_PmSampling_DecodeData_Params>(
        CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    dd.pPmSamplingObject = pm_->get();
    dd.pCounterDataImage = image.data();
    dd.counterDataImageSize = image.size();
    CUptiResult r = c.call("decode", f.decode, &dd);
    if (r != CUPTI_SUCCESS) return fail("decode", r);
    auto gi = make_params<CUpti_PmSampling_GetCounterDataInfo_Params>(
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    gi.pCounterDataImage = image.data();
    gi.counterDataImageSize = image.size();
    r = f.counter_data_info(&gi);
    if (r != CUPTI_SUCCESS) return fail("decode", r);
    // Only samples over a pending launch are evaluated (what costs the CPU): the GPU's idle
    // time between frames is decoded and passed over. Taken after the decode: a launch begun
    // since cannot overlap a sample completed before it.
    // A launch under way may still be running; one that ended is known by its kernels once
    // their records came (the host's bracket around it also holds the interop's waits).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> brackets;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [id, p] : pending_) {
        const auto [start, end] = p.t1 ? kernel_span(p) : std::pair<std::uint64_t, std::uint64_t>{};
        if (end)
          brackets.emplace_back(start, end);
        else
          brackets.emplace_back(p.t0, p.t1 ? p.t1 : ~std::uint64_t{0} / 2);
      }
    }
    auto wanted = [&](std::uint64_t a, std::uint64_t b) {
      for (const auto& [t0, t1] : brackets)
        if (b + kMarginNs > t0 && a < t1 + kMarginNs) return true;
      return false;
    };
    const HostObject& ev = *evaluators_[configuration_];
    for (; next_index_ < gi.numCompletedSamples; ++next_index_) {
      auto si = make_params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
          CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
      si.pPmSamplingObject = pm_->get();
      si.pCounterDataImage = image.data();
      si.counterDataImageSize = image.size();
      si.sampleIndex = next_index_;
      r = c.call("sample info", f.sample_info, &si);
      if (r != CUPTI_SUCCESS) return fail("sample info", r);
      read_until_ = std::max(read_until_, si.endTimestamp);
      if (drop_next_) {  // spans the time before the start: CUPTI documents it as an outlier
        drop_next_ = false;
        continue;
      }
      if (si.startTimestamp < discard_before_) continue;
      sampled_us_ = static_cast<unsigned>((si.endTimestamp - si.startTimestamp + 500) / 1000);
      if (!wanted(si.startTimestamp, si.endTimestamp)) continue;
      PmSample s;
      s.start = si.startTimestamp;
      s.end = si.endTimestamp;
      s.configuration = configuration_;
      s.values.resize(ev.names().size());
      auto e = make_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
          CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
      e.pHostObject = ev.get();
      e.pCounterDataImage = image.data();
      e.counterDataImageSize = image.size();
      e.rangeIndex = next_index_;
      e.ppMetricNames = const_cast<const char**>(ev.names().data());
      e.numMetrics = ev.names().size();
      e.pMetricValues = s.values.data();
      r = c.call("evaluate", f.host_evaluate, &e);
      if (r != CUPTI_SUCCESS) return fail("evaluate", r);
      samples_.push_back(std::move(s));
    }
    fill_ = {gi.numTotalSamples, gi.numPopulatedSamples, gi.numCompletedSamples,
             dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ||
                 gi.numCompletedSamples >= gi.numTotalSamples};
    // The hardware buffer overwrote records before they were read: the coverage check sees it.
    // An image that filled dropped what did not fit (renewal() keeps it from filling), but that
    // is no sign of samples coming faster than they are read, so it does not raise the
    // interval, whose restart would itself leave a gap in a launch under way.
    if (dd.overflow) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++overflows_;
      lost_ = true;
    }
    if (opts_.trace)
      opts_.trace("decode at " + std::to_string(now()) + ": " +
                  std::to_string(gi.numCompletedSamples) + " samples in the image (" +
                  std::to_string(gi.numPopulatedSamples) + " begun), " +
                  std::to_string(samples_.size()) + " kept, stop reason " +
                  std::to_string(dd.decodeStopReason) + (dd.overflow ? ", overflow" : "") +
                  (samples_.empty() ? std::string()
                                    : ", last " + std::to_string(samples_.back().start) + ".." +
                                          std::to_string(samples_.back().end)));
    if (!fill_.full) return true;
    renew_if_due();  // full: renewed at once, and the records that did not fit decoded next
  }
  return true;
}

void PmSampler::renew_if_due() {
  Renewal r = Renewal::Keep;
  bool under_launch = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    under_launch = !pending_.empty();
    r = renewal(fill_, under_launch);
    // The rest of the cut sample lands in the new image, unread (as is every sample begun
    // before the renewal, with the margin); no launch begins until they have passed.
    if (r == Renewal::Cut)
      settled_at_ = std::max(settled_at_, Clock::now() + std::chrono::microseconds(interval_us_) +
                                              2 * std::chrono::nanoseconds(kMarginNs));
  }
  if (r == Renewal::Keep) return;
  // Under a launch only the cut sample, which begins where the last one read ended, is passed
  // over: the samples after it, still in the hardware buffer, are the launch's.
  if (r == Renewal::Cut)
    discard_before_ =
        under_launch && read_until_ > 0 ? read_until_ + 500ull * interval_us_ : now() + kMarginNs;
  if (opts_.trace)
    opts_.trace(std::string("image renewed ") +
                (r == Renewal::Cut ? "mid-sample, samples begun before " +
                                         std::to_string(discard_before_) + " not read"
                                   : "on a sample boundary") +
                " (" + std::to_string(fill_.completed) + " of " + std::to_string(fill_.total) +
                " samples, " + std::to_string(fill_.populated) + " begun)");
  counter_data_[configuration_] = blank_data_[configuration_];
  next_index_ = 0;
  fill_ = {};
}

std::pair<std::uint64_t, std::uint64_t> PmSampler::kernel_span(const Pending& p) const {
  std::uint64_t start = 0, end = 0;
  for (const KernelTimes& k : kernels_)
    if (k.start >= p.t0 && k.end <= p.t1) {
      start = start ? std::min(start, k.start) : k.start;
      end = std::max(end, k.end);
    }
  return {start, end};
}

void PmSampler::attribute_ready() {
  const std::uint64_t now_cupti = now();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now_steady = Clock::now();
  std::vector<LaunchSpan> spans;
  std::vector<bool> overdue;
  std::vector<std::uint64_t> others;  // begin times of launches not among spans
  // A launch begun and never ended (its measuring code failed between the two) would hold every
  // later sample: after a minute it is given up.
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.t1 == 0 && now_steady - it->second.begun > std::chrono::minutes(1)) {
      CounterFigures f;
      f.unavailable = "the launch never ended";
      results_[it->first] = f;
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [id, p] : pending_) {
    if (p.t1 == 0) {
      others.push_back(p.t0);
      continue;
    }
    LaunchSpan l{id, 0, 0, p.sm_cycles};
    std::tie(l.start, l.end) = kernel_span(p);
    if (l.end == 0) {
      if (now_steady - p.ended <= std::chrono::milliseconds(250)) {
        others.push_back(p.t0);  // kernel records come with the next flush
        continue;
      }
      l.start = p.t0;  // none came: the host's bracket stands in
      l.end = p.t1;
    }
    spans.push_back(l);
    overdue.push_back(now_steady - p.ended > std::chrono::seconds(3));
  }
  if (spans.empty()) return;
  const std::uint64_t gap = interval_us_ * 1000ull;
  std::vector<CounterFigures> figures = attribute(samples_, spans, choice_, gap);
  const std::vector<bool> settled = settled_launches(spans, gap, read_until_, now_cupti, others);
  std::vector<bool> ready(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) ready[i] = settled[i] || overdue[i];
  if (opts_.trace)
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const Pending& p = pending_.at(spans[i].id);
      opts_.trace("launch " + std::to_string(spans[i].id) + ": host " + std::to_string(p.t0) +
                  ".." + std::to_string(p.t1) + ", kernels " + std::to_string(spans[i].start) +
                  ".." + std::to_string(spans[i].end) + ", " + std::to_string(figures[i].samples) +
                  " samples" + (ready[i] ? "" : " (waiting)") +
                  (figures[i].unavailable.empty() ? "" : ": " + figures[i].unavailable));
    }
  for (std::size_t i = 0; i < spans.size(); ++i)
    if (ready[i]) finish(spans[i].id, std::move(figures[i]));
  // What no pending launch can need any more goes.
  const std::uint64_t keep_from = pending_.empty() ? read_until_ : pending_.begin()->second.t0;
  samples_.erase(std::remove_if(samples_.begin(), samples_.end(),
                                [&](const PmSample& s) { return s.end < keep_from; }),
                 samples_.end());
  while (!kernels_.empty() && kernels_.front().end < keep_from) kernels_.pop_front();
  done_.notify_all();
}

bool PmSampler::work(Clock::time_point* wake) {
  const Clock::time_point t = Clock::now();
  DutyCycle::Plan plan{true, DutyCycle::kNever};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool busy = !pending_.empty() || promised_ || waiting_ > 0;
    if (opts_.on_demand) plan = duty_.plan(seconds(t), run_.has_value(), busy);
  }
  if (paused_) plan.on = false;
  if (plan.on && !run_) {
    // Two configurations take turns, each for a quarter of a second at least.
    const bool turn = configs_.size() > 1 && t - last_switch_ > std::chrono::milliseconds(250);
    if (!configure(turn ? 1 - configuration_ : configuration_)) return false;
  }
  if (run_) {
    // Kernel records first: the decode then evaluates only the samples over their kernels.
    activity_->flush();
    if (!decode()) return false;
  }
  // Paused too: launches that can have no more samples get what they have, or the reason.
  attribute_ready();
  if (run_) {
    renew_if_due();
    // Samples came faster than this thread evaluates them: sample half as often from now.
    if (lost_ && interval_us_ < kMaxIntervalUs) {
      lost_ = false;
      interval_us_ = 2 * interval_us_;
      if (!configure(configuration_)) return false;
    }
    // Sampling all the time, two configurations take turns, each for a quarter of a second
    // (bench and experiments: each launch), switched only while no launch is under way.
    if (configs_.size() > 1 && !opts_.on_demand) {
      std::unique_lock<std::mutex> lock(mutex_);
      const bool due =
          opts_.isolate || Clock::now() - last_switch_ > std::chrono::milliseconds(250);
      if (due && pending_.empty()) {
        switching_ = true;
        lock.unlock();
        const bool ok = configure(1 - configuration_);
        lock.lock();
        switching_ = false;
        done_.notify_all();
        if (!ok) return false;
      }
    }
  }
  // Planned again now that launches may have got their figures; CUPTI is called outside the
  // lock, which its activity callbacks take.
  bool busy = false, ended = false, stopping = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    busy = !pending_.empty() || promised_ || waiting_ > 0;
    ended = std::any_of(pending_.begin(), pending_.end(),
                        [](const auto& p) { return p.second.t1 != 0; });
    if (opts_.on_demand) plan = duty_.plan(seconds(Clock::now()), run_.has_value(), busy);
    stopping = run_ && (!plan.on || paused_);
    if (stopping) sampling_ = false;
  }
  if (stopping) {
    run_.reset();
    if (opts_.trace) opts_.trace("sampling stopped at " + std::to_string(now()));
  }
  if (!opts_.on_demand)
    *wake = t + kRound;
  else if (busy)
    *wake = t + (ended ? kEndedRound : kRunningRound);
  else if (plan.next == DutyCycle::kNever)
    *wake = Clock::time_point::max();
  else
    *wake = started_ +
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(plan.next));
  // While sampling runs the image fills: it is read at least every round.
  if (run_) *wake = std::min(*wake, t + kRunningRound);
  return true;
}

void PmSampler::run_worker() {
  const double cpu0 = thread_cpu_seconds();
  auto mark_wall = Clock::now();
  double mark_cpu = 0;
  Clock::time_point wake = Clock::now() + kRound;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto woken = [&] { return stop_ || poke_; };
      sleeping_ = wake == Clock::time_point::max();
      if (sleeping_)
        wake_.wait(lock, woken);
      else
        wake_.wait_until(lock, wake, woken);
      sleeping_ = poke_ = false;
      if (stop_) return;
    }
    if (!work(&wake)) break;
    worker_cpu_s_ = thread_cpu_seconds() - cpu0;
    const auto now_steady = Clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      duty_.spent(seconds(now_steady), worker_cpu_s_);
    }
    const double wall = std::chrono::duration<double>(now_steady - mark_wall).count();
    if (wall >= 1) {
      recent_cpu_share_ = (worker_cpu_s_ - mark_cpu) / wall;
      mark_wall = now_steady;
      mark_cpu = worker_cpu_s_;
    }
  }
  // CUPTI refused mid-way: every launch waiting gets the reason.
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    CounterFigures f;
    f.unavailable = unavailable_;
    results_[it->first] = f;
    it = pending_.erase(it);
  }
  done_.notify_all();
}

}  // namespace mp::counters
