// CUPTI loaded at run time (dlopen), so that the program starts and runs on the model alone
// where libcupti or the profiling libraries are missing. Every call goes through one place
// that can be told to fail at a named step: how tests reach the refusal paths without a GPU.
#pragma once

#include <cupti_activity.h>
#include <cupti_pcsampling.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <memory>
#include <optional>
#include <string>

namespace mp::counters {

// The CUPTI entry points mandelpipe uses, as loaded (or as a test fakes them).
struct CuptiFunctions {
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  // Host side: metric names, configuration images, evaluation. Needs no GPU.
  decltype(&cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) host_deinitialize = nullptr;
  decltype(&cuptiProfilerHostGetBaseMetrics) host_base_metrics = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) host_add_metrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) host_config_size = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) host_config_image = nullptr;
  decltype(&cuptiProfilerHostGetNumOfPasses) host_passes = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) host_evaluate = nullptr;
  // Target side: the device's PM sampler.
  decltype(&cuptiProfilerInitialize) profiler_initialize = nullptr;
  decltype(&cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&cuptiPmSamplingGetCounterAvailability) availability = nullptr;
  decltype(&cuptiPmSamplingEnable) enable = nullptr;
  decltype(&cuptiPmSamplingDisable) disable = nullptr;
  decltype(&cuptiPmSamplingSetConfig) set_config = nullptr;
  decltype(&cuptiPmSamplingGetCounterDataSize) counter_data_size = nullptr;
  decltype(&cuptiPmSamplingCounterDataImageInitialize) counter_data_initialize = nullptr;
  decltype(&cuptiPmSamplingStart) start = nullptr;
  decltype(&cuptiPmSamplingStop) stop = nullptr;
  decltype(&cuptiPmSamplingDecodeData) decode = nullptr;
  decltype(&cuptiPmSamplingGetCounterDataInfo) counter_data_info = nullptr;
  decltype(&cuptiPmSamplingCounterDataGetSampleInfo) sample_info = nullptr;
  // Activity tracing: each kernel's start and end in the samples' time base.
  decltype(&cuptiActivityEnable) activity_enable = nullptr;
  decltype(&cuptiActivityDisable) activity_disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) activity_callbacks = nullptr;
  decltype(&cuptiActivityFlushAll) activity_flush = nullptr;
  decltype(&cuptiActivityGetNextRecord) activity_next = nullptr;
  // PC sampling, per CUDA context: where warps were and why they did not issue.
  decltype(&cuptiPCSamplingEnable) pc_enable = nullptr;
  decltype(&cuptiPCSamplingDisable) pc_disable = nullptr;
  decltype(&cuptiPCSamplingSetConfigurationAttribute) pc_configure = nullptr;
  decltype(&cuptiPCSamplingGetNumStallReasons) pc_reason_count = nullptr;
  decltype(&cuptiPCSamplingGetStallReasons) pc_reasons = nullptr;
  decltype(&cuptiPCSamplingStart) pc_start = nullptr;
  decltype(&cuptiPCSamplingStop) pc_stop = nullptr;
  decltype(&cuptiPCSamplingGetData) pc_data = nullptr;
  // The CUDA driver (libcuda, which the runtime has loaded): the device's primary context, the
  // one the runtime launches in, which PC sampling is enabled for. Null where it is not there.
  decltype(&cuInit) cu_init = nullptr;
  decltype(&cuDeviceGet) cu_device = nullptr;
  decltype(&cuDevicePrimaryCtxRetain) cu_retain = nullptr;
  decltype(&cuDevicePrimaryCtxRelease) cu_release = nullptr;
};

// A CUPTI parameter struct, zeroed, with its size set (as every CUPTI call wants it).
template <class P>
P make_params(std::size_t struct_size) {
  P p{};
  p.structSize = struct_size;
  return p;
}

// Where CUPTI refused, and with what.
struct CuptiFailure {
  std::string step;
  CUptiResult result = CUPTI_SUCCESS;
  explicit operator bool() const { return result != CUPTI_SUCCESS; }
};

// A failure to inject: the call made at `step` returns `result` instead of running.
struct Fault {
  std::string step;
  CUptiResult result = CUPTI_SUCCESS;
};

class Cupti {
 public:
  // libcupti from the loader's path, else beside the CUDA runtime this process uses, else
  // $CUDA_HOME/lib64 and /usr/local/cuda/lib64; `library` overrides the name (tests). Empty
  // on failure, with the reason in *why.
  static std::unique_ptr<Cupti> load(std::string* why, const std::string& library = "");
  // Functions supplied by the caller (tests), no library behind them.
  explicit Cupti(const CuptiFunctions& f) : f_(f) {}
  ~Cupti();
  Cupti(const Cupti&) = delete;
  Cupti& operator=(const Cupti&) = delete;

  const CuptiFunctions& functions() const { return f_; }
  void inject(std::optional<Fault> fault) { fault_ = std::move(fault); }
  // Runs f(params) unless a fault is injected at `step`; returns the result.
  template <class F, class P>
  CUptiResult call(const char* step, F f, P* params) const {
    if (fault_ && fault_->step == step) return fault_->result;
    return f(params);
  }
  // The injected result at `step`, for calls that take no parameter struct.
  CUptiResult injected(const char* step) const {
    return fault_ && fault_->step == step ? fault_->result : CUPTI_SUCCESS;
  }
  std::string describe(CUptiResult r) const;  // "CUPTI_ERROR_... (35): text"
  std::string path() const { return path_; }

 private:
  Cupti() = default;
  CuptiFunctions f_;
  void* handle_ = nullptr;
  std::string path_;
  std::optional<Fault> fault_;
};

// Which of CUPTI's samplers a refusal is about: the pipe counters (PM sampling) or the stall
// reasons (PC sampling).
enum class Sampler { Pm, Pc };

// The one line a user reads when counters cannot be had: what happened at which step, and
// what to do about it (permission, library, driver, another profiler).
std::string refusal_line(const std::string& step, CUptiResult r, const std::string& detail,
                         Sampler sampler = Sampler::Pm);
// Results that mean another user of the profiling hardware holds it (another profiler, or the
// other of CUPTI's samplers where the two cannot run together).
bool held_elsewhere(CUptiResult r);

}  // namespace mp::counters
