// The one measuring kit of a GPU launch, shared by the renderer, bench and the experiments:
// a stream, the events around the launch and the per-SM span buffer (sm_spans.h), cleared
// before, read back and reduced after. Host code over the CUDA runtime; no GL, no UI.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "cuda_check.h"
#include "device_buffer.h"
#include "sm_spans.h"

namespace mp {

// A blocking stream: it waits for work on the legacy stream, where interop maps and unmaps GL
// resources, so a kernel never writes a buffer GL is still reading.
class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreate(&s_)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// A measured launch is clear(), start(), the enqueued work, stop(), read(); once() does all
// five for one callable (cudaStream_t, const SmSpan&).
class MeasureKit {
 public:
  // Makes `device` current first, for the kit and whatever its owner creates after it.
  MeasureKit(int device, const SpanLayout& layout);
  MeasureKit(const MeasureKit&) = delete;
  MeasureKit& operator=(const MeasureKit&) = delete;

  cudaStream_t stream() const { return stream_.get(); }
  const SpanLayout& layout() const { return layout_; }
  const SmSpan& span() const { return span_; }

  // Enqueues the buffer's reset (first to ~0, everything after it to 0): before start(), so
  // that it stays out of the timed work.
  void clear();
  void start();
  void stop();
  // Copies the per-SM arrays back into a pinned mirror, waits for the stream, and reduces them
  // with the events' time.
  SpanReading read();

  template <class Launch>
  SpanReading once(Launch&& launch) {
    clear();
    start();
    launch(stream(), span());
    CUDA_CHECK(cudaGetLastError());
    stop();
    return read();
  }

  // Milliseconds between the events around `n` back-to-back launches (no spans: nothing is
  // cleared or read back).
  template <class Launch>
  double batch_ms(Launch&& launch, int n) {
    start();
    for (int i = 0; i < n; ++i) launch(stream(), span());
    CUDA_CHECK(cudaGetLastError());
    stop();
    CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return elapsed_ms();
  }

 private:
  double elapsed_ms() const;

  struct FreeHost {
    void operator()(unsigned long long* p) const { cudaFreeHost(p); }
  };
  // First member: the device is chosen before anything is created on it.
  struct UseDevice {
    explicit UseDevice(int index) { CUDA_CHECK(cudaSetDevice(index)); }
  } device_;
  SpanLayout layout_;
  Stream stream_;
  Event start_, stop_;
  DeviceBuffer<unsigned long long> buffer_;
  std::unique_ptr<unsigned long long[], FreeHost> host_;  // pinned mirror of the per-SM arrays
  SmSpan span_;
};

}  // namespace mp
