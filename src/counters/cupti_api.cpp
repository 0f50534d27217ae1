#include "counters/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace mp::counters {
namespace {

// The folder of the CUDA runtime this process has loaded: the toolkit that ships its CUPTI.
std::string runtime_folder() {
  void* sym = dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
  Dl_info info{};
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

template <class T>
bool bind(void* h, const char* name, T& f, std::string* missing) {
  f = reinterpret_cast<T>(dlsym(h, name));
  if (!f && missing->empty()) *missing = name;
  return f != nullptr;
}

}  // namespace

std::unique_ptr<Cupti> Cupti::load(std::string* why, const std::string& library) {
  std::vector<std::string> tries;
  if (!library.empty()) {
    tries.push_back(library);
  } else {
    tries.push_back("libcupti.so.13");
    tries.push_back("libcupti.so");
    for (const std::string& dir :
         {runtime_folder(), std::string(std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : ""),
          std::string("/usr/local/cuda")}) {
      if (dir.empty()) continue;
      for (const char* sub : {"", "/lib64", "/extras/CUPTI/lib64"})
        tries.push_back(dir + sub + "/libcupti.so");
    }
  }
  std::string last_error;
  for (const std::string& t : tries) {
    void* h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      if (const char* e = dlerror()) last_error = e;
      continue;
    }
    std::unique_ptr<Cupti> c(new Cupti());
    c->handle_ = h;
    c->path_ = t;
    CuptiFunctions& f = c->f_;
    std::string missing;
    bind(h, "cuptiGetResultString", f.result_string, &missing);
    bind(h, "cuptiGetTimestamp", f.timestamp, &missing);
    bind(h, "cuptiProfilerHostInitialize", f.host_initialize, &missing);
    bind(h, "cuptiProfilerHostDeinitialize", f.host_deinitialize, &missing);
    bind(h, "cuptiProfilerHostGetBaseMetrics", f.host_base_metrics, &missing);
    bind(h, "cuptiProfilerHostConfigAddMetrics", f.host_add_metrics, &missing);
    bind(h, "cuptiProfilerHostGetConfigImageSize", f.host_config_size, &missing);
    bind(h, "cuptiProfilerHostGetConfigImage", f.host_config_image, &missing);
    bind(h, "cuptiProfilerHostGetNumOfPasses", f.host_passes, &missing);
    bind(h, "cuptiProfilerHostEvaluateToGpuValues", f.host_evaluate, &missing);
    bind(h, "cuptiProfilerInitialize", f.profiler_initialize, &missing);
    bind(h, "cuptiDeviceGetChipName", f.chip_name, &missing);
    bind(h, "cuptiPmSamplingGetCounterAvailability", f.availability, &missing);
    bind(h, "cuptiPmSamplingEnable", f.enable, &missing);
    bind(h, "cuptiPmSamplingDisable", f.disable, &missing);
    bind(h, "cuptiPmSamplingSetConfig", f.set_config, &missing);
    bind(h, "cuptiPmSamplingGetCounterDataSize", f.counter_data_size, &missing);
    bind(h, "cuptiPmSamplingCounterDataImageInitialize", f.counter_data_initialize, &missing);
    bind(h, "cuptiPmSamplingStart", f.start, &missing);
    bind(h, "cuptiPmSamplingStop", f.stop, &missing);
    bind(h, "cuptiPmSamplingDecodeData", f.decode, &missing);
    bind(h, "cuptiPmSamplingGetCounterDataInfo", f.counter_data_info, &missing);
    bind(h, "cuptiPmSamplingCounterDataGetSampleInfo", f.sample_info, &missing);
    bind(h, "cuptiActivityEnable", f.activity_enable, &missing);
    bind(h, "cuptiActivityDisable", f.activity_disable, &missing);
    bind(h, "cuptiActivityRegisterCallbacks", f.activity_callbacks, &missing);
    bind(h, "cuptiActivityFlushAll", f.activity_flush, &missing);
    bind(h, "cuptiActivityGetNextRecord", f.activity_next, &missing);
    bind(h, "cuptiPCSamplingEnable", f.pc_enable, &missing);
    bind(h, "cuptiPCSamplingDisable", f.pc_disable, &missing);
    bind(h, "cuptiPCSamplingSetConfigurationAttribute", f.pc_configure, &missing);
    bind(h, "cuptiPCSamplingGetNumStallReasons", f.pc_reason_count, &missing);
    bind(h, "cuptiPCSamplingGetStallReasons", f.pc_reasons, &missing);
    bind(h, "cuptiPCSamplingStart", f.pc_start, &missing);
    bind(h, "cuptiPCSamplingStop", f.pc_stop, &missing);
    bind(h, "cuptiPCSamplingGetData", f.pc_data, &missing);
    // The driver is the runtime's, already loaded where there is a GPU (RTLD_NOLOAD: no other
    // copy is loaded here); PC sampling alone needs it, and says so where it is missing.
    if (void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
      std::string none;
      bind(cu, "cuInit", f.cu_init, &none);
      bind(cu, "cuDeviceGet", f.cu_device, &none);
      bind(cu, "cuDevicePrimaryCtxRetain", f.cu_retain, &none);
      bind(cu, "cuDevicePrimaryCtxRelease_v2", f.cu_release, &none);
    }
    if (!missing.empty()) {
      *why = t + " has no " + missing + " (PM sampling needs CUPTI from CUDA 12.6 or newer)";
      return nullptr;
    }
    return c;
  }
  *why = "libcupti not found (" + (last_error.empty() ? tries.front() : last_error) +
         "); it ships with NVIDIA's CUDA toolkit";
  return nullptr;
}

Cupti::~Cupti() {
  // libcupti keeps threads and driver hooks for the life of the process once used: unloading
  // it under them would crash at exit, so the handle stays open.
  (void)handle_;
}

std::string Cupti::describe(CUptiResult r) const {
  const char* s = nullptr;
  if (f_.result_string) f_.result_string(r, &s);
  return (s ? std::string(s) : std::string("CUPTI error")) + " (" + std::to_string(r) + ")";
}

bool held_elsewhere(CUptiResult r) {
  return r == CUPTI_ERROR_HARDWARE_BUSY || r == CUPTI_ERROR_INVALID_OPERATION ||
         r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
         r == CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED;
}

std::string refusal_line(const std::string& step, CUptiResult r, const std::string& detail,
                         Sampler sampler) {
  const std::string at = " (" + step + ": " + detail + ")";
  // The same causes and cures for both samplers; what is missing, and what shows instead.
  const bool pc = sampler == Sampler::Pc;
  const std::string what = pc ? "Stall reasons (CUPTI PC sampling)" : "Hardware counters";
  const std::string instead = pc ? "showing none" : "showing the model only";
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return what +
             " need profiling permission: run as root or with CAP_SYS_ADMIN "
             "(CAP_PERFMON from driver R565), or have the GPU's admin load the NVIDIA driver with "
             "NVreg_RestrictProfilingToAdminUsers=0 (README, Hardware counters); " +
             instead + at;
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return what + " are not available under WSL; " + instead + at;
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
      return what + ": this GPU or its mode has no " + (pc ? "PC" : "PM") + " sampling; " +
             instead + at;
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_INVALID_OPERATION:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return what + " are held by another profiler (ncu, nsys or a CUPTI tool); " + instead + at;
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_INVALID_CONTEXT:
      return what + ": the NVIDIA driver is too old for this CUPTI, or no GPU answers; " + instead +
             at;
    default: return what + " unavailable; " + instead + at;
  }
}

}  // namespace mp::counters
