#include "counters/cupti_handles.h"

#include <cstdlib>
#include <mutex>
#include <utility>

namespace mp::counters {
namespace {

// Where CUPTI's buffer callbacks find the records' owner, and the lock they take to use it.
std::mutex& activity_mutex() {
  static std::mutex m;
  return m;
}
const KernelActivity*& current_activity() {
  static const KernelActivity* a = nullptr;
  return a;
}

}  // namespace

PmSamplingObject::PmSamplingObject(const Cupti& cupti, std::size_t device_index) : cupti_(cupti) {
  auto en = make_params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  en.deviceIndex = device_index;
  result_ = cupti.call("enable", cupti.functions().enable, &en);
  if (result_ == CUPTI_SUCCESS) object_ = en.pPmSamplingObject;
}

PmSamplingObject::~PmSamplingObject() {
  if (!object_) return;
  auto d =
      make_params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  d.pPmSamplingObject = object_;
  cupti_.functions().disable(&d);
}

SamplingRun::SamplingRun(const Cupti& cupti, CUpti_PmSampling_Object* object)
    : cupti_(cupti), object_(object) {
  auto st = make_params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  st.pPmSamplingObject = object_;
  result_ = cupti.call("start", cupti.functions().start, &st);
}

SamplingRun::~SamplingRun() {
  if (result_ != CUPTI_SUCCESS) return;
  auto s = make_params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  s.pPmSamplingObject = object_;
  cupti_.functions().stop(&s);
}

KernelActivity::KernelActivity(const Cupti& cupti,
                               std::function<void(std::vector<KernelTimes>)> sink)
    : cupti_(cupti), sink_(std::move(sink)) {
  std::lock_guard<std::mutex> lock(activity_mutex());
  const CuptiFunctions& f = cupti.functions();
  result_ = cupti.injected("activity");
  if (result_ == CUPTI_SUCCESS) result_ = f.activity_callbacks(&requested, &completed);
  if (result_ == CUPTI_SUCCESS) result_ = f.activity_enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (result_ != CUPTI_SUCCESS) return;
  enabled_ = true;
  current_activity() = this;
}

KernelActivity::~KernelActivity() {
  if (!enabled_) return;
  cupti_.functions().activity_disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cupti_.functions().activity_flush(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(activity_mutex());
  if (current_activity() == this) current_activity() = nullptr;
}

void KernelActivity::flush() const {
  if (enabled_) cupti_.functions().activity_flush(0);
}

void CUPTIAPI KernelActivity::requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t kBytes = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
  *size = *buffer ? kBytes : 0;
  *max_records = 0;
}

void CUPTIAPI KernelActivity::completed(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                        size_t valid) {
  std::lock_guard<std::mutex> lock(activity_mutex());
  const KernelActivity* a = current_activity();
  if (a && buffer) {
    CUpti_Activity* record = nullptr;
    std::vector<KernelTimes> got;
    while (a->cupti_.functions().activity_next(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      got.push_back({k->start, k->end});
    }
    a->sink_(std::move(got));
  }
  std::free(buffer);
}

PrimaryContext::PrimaryContext(const Cupti& cupti, int device_index) : cupti_(cupti) {
  const CuptiFunctions& f = cupti.functions();
  if (!f.cu_init || !f.cu_device || !f.cu_retain || !f.cu_release) {
    failure_ = "the CUDA driver (libcuda.so.1) is not loaded in this process";
    return;
  }
  CUresult r = f.cu_init(0);
  if (r == CUDA_SUCCESS) r = f.cu_device(&device_, device_index);
  if (r == CUDA_SUCCESS) r = f.cu_retain(&context_, device_);
  if (r != CUDA_SUCCESS) {
    context_ = nullptr;
    failure_ = "the CUDA driver gave no context for device " + std::to_string(device_index) +
               " (CUresult " + std::to_string(r) + ")";
  }
}

PrimaryContext::~PrimaryContext() {
  if (context_) cupti_.functions().cu_release(device_);
}

PcSamplingSession::PcSamplingSession(const Cupti& cupti, CUcontext context)
    : cupti_(cupti), context_(context) {
  CUpti_PCSamplingEnableParams p{};
  p.size = CUpti_PCSamplingEnableParamsSize;
  p.ctx = context;
  result_ = cupti.call("pc enable", cupti.functions().pc_enable, &p);
}

PcSamplingSession::~PcSamplingSession() {
  if (result_ != CUPTI_SUCCESS) return;
  CUpti_PCSamplingDisableParams p{};
  p.size = CUpti_PCSamplingDisableParamsSize;
  p.ctx = context_;
  cupti_.functions().pc_disable(&p);
}

PcSamplingRange::PcSamplingRange(const Cupti& cupti, CUcontext context)
    : cupti_(cupti), context_(context) {
  CUpti_PCSamplingStartParams p{};
  p.size = CUpti_PCSamplingStartParamsSize;
  p.ctx = context;
  result_ = cupti.call("pc start", cupti.functions().pc_start, &p);
  running_ = result_ == CUPTI_SUCCESS;
}

CUptiResult PcSamplingRange::stop() {
  if (!running_) return CUPTI_SUCCESS;
  running_ = false;
  CUpti_PCSamplingStopParams p{};
  p.size = CUpti_PCSamplingStopParamsSize;
  p.ctx = context_;
  return cupti_.call("pc stop", cupti_.functions().pc_stop, &p);
}

PcSamplingRange::~PcSamplingRange() {
  stop();
}

}  // namespace mp::counters
