// CUPTI's sampling resources, each given back by its destructor on every path: the device's PM
// sampler, a run of sampling, and the kernel activity records that place launches in time; the
// primary context PC sampling is enabled for, PC sampling itself and a range of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "counters/cupti_api.h"

namespace mp::counters {

// cuptiPmSamplingEnable, and Disable when it goes.
class PmSamplingObject {
 public:
  PmSamplingObject(const Cupti& cupti, std::size_t device_index);
  ~PmSamplingObject();
  PmSamplingObject(const PmSamplingObject&) = delete;
  PmSamplingObject& operator=(const PmSamplingObject&) = delete;
  CUpti_PmSampling_Object* get() const { return object_; }  // null where it was refused
  CUptiResult result() const { return result_; }

 private:
  const Cupti& cupti_;
  CUpti_PmSampling_Object* object_ = nullptr;
  CUptiResult result_ = CUPTI_SUCCESS;
};

// Sampling runs while this lives: cuptiPmSamplingStart, and Stop when it goes.
class SamplingRun {
 public:
  SamplingRun(const Cupti& cupti, CUpti_PmSampling_Object* object);
  ~SamplingRun();
  SamplingRun(const SamplingRun&) = delete;
  SamplingRun& operator=(const SamplingRun&) = delete;
  CUptiResult result() const { return result_; }  // of the start

 private:
  const Cupti& cupti_;
  CUpti_PmSampling_Object* object_;
  CUptiResult result_ = CUPTI_SUCCESS;
};

// A kernel's first and last moment, in the samples' time base.
struct KernelTimes {
  std::uint64_t start = 0, end = 0;
};

// CUPTI's concurrent-kernel records, handed to `sink` as CUPTI completes their buffers (on
// flush() or a thread of its own). One at a time in a process: CUPTI's buffer callbacks are
// plain functions, which find it through a process-wide place.
class KernelActivity {
 public:
  KernelActivity(const Cupti& cupti, std::function<void(std::vector<KernelTimes>)> sink);
  // Disables the records, hands the sink what remains, and forgets it.
  ~KernelActivity();
  KernelActivity(const KernelActivity&) = delete;
  KernelActivity& operator=(const KernelActivity&) = delete;
  CUptiResult result() const { return result_; }
  // The records of the buffers CUPTI has completed, to the sink now.
  void flush() const;

 private:
  static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid);

  const Cupti& cupti_;
  std::function<void(std::vector<KernelTimes>)> sink_;
  CUptiResult result_ = CUPTI_SUCCESS;
  bool enabled_ = false;
};

// The device's primary context (the one the CUDA runtime launches in), retained while this lives.
class PrimaryContext {
 public:
  PrimaryContext(const Cupti& cupti, int device_index);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  CUcontext get() const { return context_; }               // null where it could not be had
  const std::string& failure() const { return failure_; }  // why not, in words

 private:
  const Cupti& cupti_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::string failure_;
};

// cuptiPCSamplingEnable for a context, and Disable when it goes.
class PcSamplingSession {
 public:
  PcSamplingSession(const Cupti& cupti, CUcontext context);
  ~PcSamplingSession();
  PcSamplingSession(const PcSamplingSession&) = delete;
  PcSamplingSession& operator=(const PcSamplingSession&) = delete;
  CUptiResult result() const { return result_; }

 private:
  const Cupti& cupti_;
  CUcontext context_;
  CUptiResult result_ = CUPTI_SUCCESS;
};

// PC sampling runs while this lives (start/stop control): cuptiPCSamplingStart, and Stop on
// stop() or when it goes.
class PcSamplingRange {
 public:
  PcSamplingRange(const Cupti& cupti, CUcontext context);
  ~PcSamplingRange();
  PcSamplingRange(const PcSamplingRange&) = delete;
  PcSamplingRange& operator=(const PcSamplingRange&) = delete;
  CUptiResult result() const { return result_; }  // of the start
  CUptiResult stop();                             // once; the range's records are then ready

 private:
  const Cupti& cupti_;
  CUcontext context_;
  CUptiResult result_ = CUPTI_SUCCESS;
  bool running_ = false;
};

}  // namespace mp::counters
