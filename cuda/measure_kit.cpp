#include "measure_kit.h"

namespace mp {
namespace {

unsigned long long* pinned(std::size_t words) {
  unsigned long long* p = nullptr;
  CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p), words * sizeof(unsigned long long)));
  return p;
}

}  // namespace

MeasureKit::MeasureKit(int device, const SpanLayout& layout)
    : device_(device),
      layout_(layout),
      buffer_(layout.words()),
      host_(pinned(layout.per_sm_words())),
      span_(span_of(layout, buffer_.get())) {}

void MeasureKit::clear() {
  CUDA_CHECK(cudaMemsetAsync(span_.first, 0xff, kSmSlots * sizeof(unsigned long long), stream()));
  CUDA_CHECK(cudaMemsetAsync(span_.last, 0,
                             (layout_.words() - kSmSlots) * sizeof(unsigned long long), stream()));
}

void MeasureKit::start() {
  CUDA_CHECK(cudaEventRecord(start_.get(), stream()));
}

void MeasureKit::stop() {
  CUDA_CHECK(cudaEventRecord(stop_.get(), stream()));
}

double MeasureKit::elapsed_ms() const {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
  return ms;
}

SpanReading MeasureKit::read() {
  CUDA_CHECK(cudaMemcpyAsync(host_.get(), buffer_.get(),
                             layout_.per_sm_words() * sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  return reduce_spans(layout_, host_.get(), elapsed_ms());
}

}  // namespace mp
