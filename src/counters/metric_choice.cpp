#include "counters/metric_choice.h"

#include <algorithm>

namespace mp::counters {

HostObject::HostObject(const Cupti& c, const std::string& chip,
                       const std::vector<std::uint8_t>& avail)
    : cupti_(c) {
  auto p = make_params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = avail.empty() ? nullptr : avail.data();
  result_ = c.call("host initialize", c.functions().host_initialize, &p);
  if (result_ == CUPTI_SUCCESS) object_ = p.pHostObject;
}

HostObject::~HostObject() {
  if (!object_) return;
  auto d = make_params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  d.pHostObject = object_;
  cupti_.functions().host_deinitialize(&d);
}

CUptiResult HostObject::add(const std::vector<std::string>& metrics) {
  metrics_ = metrics;
  names_.clear();
  for (const std::string& m : metrics_) names_.push_back(m.c_str());
  auto a = make_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  a.pHostObject = object_;
  a.ppMetricNames = names_.data();
  a.numMetrics = names_.size();
  return cupti_.call("add metrics", cupti_.functions().host_add_metrics, &a);
}

namespace {

// What stands for each pipe, in the order the pipes are packed (the ones the model cannot do
// without first): base metric names, best first, and the submetric read from them. No LSU: the
// one GH100 fits in the pass read 0 where ncu counted the perturbation kernel's loads.
struct Role {
  const char* pipe;
  std::vector<const char*> bases;
  const char* submetric;
  MetricKind kind;
};
const std::vector<Role>& roles() {
  static const std::vector<Role> r = {
      {"issue",
       {"sm__inst_executed_realtime", "sm__inst_executed"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"XU",
       {"sm__inst_executed_pipe_xu_realtime", "sm__inst_executed_pipe_xu"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"ALU",
       {"sm__inst_executed_pipe_alu_realtime", "sm__inst_executed_pipe_alu"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"clock", {"gpc__cycles_elapsed"}, ".avg.per_second", MetricKind::PerSecond},
      {"SM active",
       {"sm__cycles_active"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"fmaheavy",
       {"sm__inst_executed_pipe_fmaheavy_realtime", "sm__inst_executed_pipe_fmaheavy"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"fmalite",
       {"sm__inst_executed_pipe_fmalite_realtime", "sm__inst_executed_pipe_fmalite"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"FMA",
       {"sm__inst_executed_pipe_fma_realtime", "sm__inst_executed_pipe_fma"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
      {"FP64",
       {"sm__pipe_fp64_cycles_active_realtime", "sm__pipe_fp64_cycles_active",
        "sm__inst_executed_pipe_fp64"},
       ".avg.pct_of_peak_sustained_elapsed",
       MetricKind::PctOfPeak},
  };
  return r;
}

// The chip's names for `base`: prefixed ones first (where a chip has both, its single-pass
// live set is the prefixed one), then the plain name.
std::vector<std::string> names_for(const std::vector<std::string>& all, const std::string& base) {
  std::vector<std::string> prefixed, plain;
  for (const std::string& n : all) {
    if (n == base)
      plain.push_back(n);
    else if (n.size() > base.size() && n.compare(n.size() - base.size(), base.size(), base) == 0 &&
             n[n.size() - base.size() - 1] == '.')
      prefixed.push_back(n);
  }
  std::sort(prefixed.begin(), prefixed.end());
  prefixed.insert(prefixed.end(), plain.begin(), plain.end());
  return prefixed;
}

std::vector<std::string> full_names(const std::vector<ChosenMetric>& set) {
  std::vector<std::string> out;
  for (const ChosenMetric& m : set) out.push_back(m.metric);
  return out;
}

}  // namespace

std::vector<std::string> base_metrics(const Cupti& c, const std::string& chip,
                                      const std::vector<std::uint8_t>& avail,
                                      CuptiFailure* failure) {
  HostObject host(c, chip, avail);
  if (!host.get()) {
    *failure = {"host initialize", host.result()};
    return {};
  }
  auto b = make_params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
      CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
  b.pHostObject = host.get();
  b.metricType = CUPTI_METRIC_TYPE_COUNTER;
  const CUptiResult r = c.call("base metrics", c.functions().host_base_metrics, &b);
  if (r != CUPTI_SUCCESS) {
    *failure = {"base metrics", r};
    return {};
  }
  return std::vector<std::string>(b.ppMetricNames, b.ppMetricNames + b.numMetrics);
}

std::vector<std::uint8_t> config_image(const Cupti& c, const std::string& chip,
                                       const std::vector<std::uint8_t>& avail,
                                       const std::vector<std::string>& metrics,
                                       CuptiFailure* failure) {
  HostObject host(c, chip, avail);
  if (!host.get()) {
    *failure = {"host initialize", host.result()};
    return {};
  }
  CUptiResult r = host.add(metrics);
  if (r != CUPTI_SUCCESS) {
    *failure = {"add metrics", r};
    return {};
  }
  auto s = make_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  s.pHostObject = host.get();
  r = c.call("config image size", c.functions().host_config_size, &s);
  if (r != CUPTI_SUCCESS) {
    *failure = {"config image size", r};
    return {};
  }
  std::vector<std::uint8_t> image(s.configImageSize);
  auto g = make_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  g.pHostObject = host.get();
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  r = c.call("config image", c.functions().host_config_image, &g);
  if (r != CUPTI_SUCCESS) {
    *failure = {"config image", r};
    return {};
  }
  return image;
}

int passes_needed(const Cupti& c, const std::string& chip, const std::vector<std::uint8_t>& avail,
                  const std::vector<std::string>& metrics, CuptiFailure* failure) {
  std::vector<std::uint8_t> image = config_image(c, chip, avail, metrics, failure);
  if (image.empty()) return -1;
  auto n = make_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.configImageSize = image.size();
  n.pConfigImage = image.data();
  const CUptiResult r = c.call("passes", c.functions().host_passes, &n);
  if (r != CUPTI_SUCCESS) {
    *failure = {"passes", r};
    return -1;
  }
  return static_cast<int>(n.numOfPasses);
}

MetricChoice choose_metrics(const Cupti& c, const std::string& chip,
                            const std::vector<std::uint8_t>& avail) {
  MetricChoice out;
  out.chip = chip;
  const std::vector<std::string> all = base_metrics(c, chip, avail, &out.failure);
  if (out.failure) {
    out.error = out.failure.step + " for " + chip + ": " + c.describe(out.failure.result);
    return out;
  }
  // One configuration's passes; a CUPTI refusal other than "no such metric" ends the choice.
  auto fits = [&](const std::vector<ChosenMetric>& trial) {
    CuptiFailure f;
    const int passes = passes_needed(c, chip, avail, full_names(trial), &f);
    const bool unknown_name =
        f.step == "add metrics" &&
        (f.result == CUPTI_ERROR_INVALID_PARAMETER || f.result == CUPTI_ERROR_INVALID_METRIC_NAME);
    if (f && !unknown_name && !out.failure) out.failure = f;
    return passes == 1;
  };
  // Greedy: each pipe takes the first of its names that keeps the configuration in one pass;
  // a pipe no name of which fits goes to a second configuration, packed the same way.
  std::vector<const Role*> left;
  for (const Role& r : roles()) left.push_back(&r);
  for (int config = 0; config < 2 && !left.empty(); ++config) {
    std::vector<ChosenMetric> set;
    std::vector<const Role*> next;
    for (const Role* role : left) {
      bool placed = false, offered = false;
      for (const char* base : role->bases) {
        for (const std::string& name : names_for(all, base)) {
          offered = true;
          std::vector<ChosenMetric> trial = set;
          trial.push_back({role->pipe, name + role->submetric, role->kind});
          // The instruction count rides on the issue metric's own counter: no extra pass.
          if (std::string(role->pipe) == "issue")
            trial.push_back({"instructions", name + ".sum", MetricKind::Count});
          if (fits(trial)) {
            set = std::move(trial);
            placed = true;
            break;
          }
          if (out.failure) break;
        }
        if (placed) break;
      }
      // The FMA pipe is its two halves: where they are counted, it is their mean (each half
      // runs at half the pipe's rate) rather than a configuration of its own.
      const bool halves = std::count_if(set.begin(), set.end(), [](const ChosenMetric& m) {
                            return m.pipe == "fmaheavy" || m.pipe == "fmalite";
                          }) == 2;
      if (!placed && std::string(role->pipe) == "FMA" && halves)
        out.fma_from_halves = true;
      else if (!offered)
        out.missing.push_back(role->pipe);
      else if (!placed)
        next.push_back(role);
    }
    if (set.empty()) break;
    out.configurations.push_back(std::move(set));
    left = std::move(next);
  }
  for (const Role* role : left) out.missing.push_back(role->pipe);
  // A second configuration needs the clock of its own samples too.
  if (out.configurations.size() == 2) {
    auto has_clock = [](const std::vector<ChosenMetric>& s) {
      return std::any_of(s.begin(), s.end(),
                         [](const ChosenMetric& m) { return m.pipe == "clock"; });
    };
    for (auto& s : out.configurations)
      if (!has_clock(s))
        for (const std::string& name : names_for(all, "gpc__cycles_elapsed")) {
          std::vector<ChosenMetric> trial = s;
          trial.push_back({"clock", name + ".avg.per_second", MetricKind::PerSecond});
          if (fits(trial)) {
            s = std::move(trial);
            break;
          }
        }
  }
  if (out.failure) {
    out.configurations.clear();
    out.error = out.failure.step + " for " + chip + ": " + c.describe(out.failure.result);
  } else if (out.configurations.empty()) {
    out.error = chip + " offers no pipe metric that fits one pass";
  }
  return out;
}

}  // namespace mp::counters
