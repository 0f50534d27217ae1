// CUDA's hold on a GL object as RAII: a registration unregisters when it ends, and a mapping
// unmaps when it ends, so an exception between a kernel and GL's turn cannot leave a buffer
// mapped (every later map would fail) or registered after its GL name is gone.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "cuda_check.h"

namespace mp::gl {

// Owns a resource from cudaGraphicsGLRegister{Buffer,Image}; unregisters it when destroyed.
class CudaRegistration {
 public:
  CudaRegistration() = default;
  explicit CudaRegistration(cudaGraphicsResource_t resource) : resource_(resource) {}
  ~CudaRegistration() {
    if (resource_) cudaGraphicsUnregisterResource(resource_);
  }
  CudaRegistration(CudaRegistration&& o) noexcept
      : resource_(std::exchange(o.resource_, nullptr)) {}
  CudaRegistration& operator=(CudaRegistration&& o) noexcept {
    std::swap(resource_, o.resource_);
    return *this;
  }
  CudaRegistration(const CudaRegistration&) = delete;
  CudaRegistration& operator=(const CudaRegistration&) = delete;

  cudaGraphicsResource_t get() const { return resource_; }

 private:
  cudaGraphicsResource_t resource_ = nullptr;
};

// A registered resource mapped for CUDA while this lives; GL may use it again once unmapped.
class CudaMapping {
 public:
  explicit CudaMapping(cudaGraphicsResource_t resource) : resource_(resource) {
    CUDA_CHECK(cudaGraphicsMapResources(1, &resource_, 0));
  }
  ~CudaMapping() {
    if (resource_) cudaGraphicsUnmapResources(1, &resource_, 0);
  }
  CudaMapping(CudaMapping&& o) noexcept : resource_(std::exchange(o.resource_, nullptr)) {}
  CudaMapping& operator=(CudaMapping&& o) noexcept {
    std::swap(resource_, o.resource_);
    return *this;
  }
  CudaMapping(const CudaMapping&) = delete;
  CudaMapping& operator=(const CudaMapping&) = delete;

  // A mapped buffer's device memory.
  template <class T>
  T* pointer() const {
    void* ptr = nullptr;
    size_t size = 0;
    CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &size, resource_));
    return static_cast<T*>(ptr);
  }
  // A mapped image's level 0 as a CUDA array.
  cudaArray_t array() const {
    cudaArray_t a = nullptr;
    CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&a, resource_, 0, 0));
    return a;
  }
  // Unmaps now and throws if that fails, which the destructor cannot report.
  void unmap() {
    cudaGraphicsResource_t r = std::exchange(resource_, nullptr);
    if (r) CUDA_CHECK(cudaGraphicsUnmapResources(1, &r, 0));
  }

 private:
  cudaGraphicsResource_t resource_ = nullptr;
};

}  // namespace mp::gl
