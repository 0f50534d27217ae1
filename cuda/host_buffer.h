// Owning host allocation, page-locked where a GPU copies into it (cudaHostAlloc, portable to
// every device, so that copies run at the bus's speed), plain memory otherwise.
#pragma once

#include <cstddef>
#include <utility>

#include "cuda_check.h"

namespace mp {

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  // Page-locked when `pinned` and the runtime can give it; plain memory otherwise.
  HostBuffer(std::size_t count, bool pinned) : count_(count) {
    if (!count) return;
    if (pinned && cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T),
                                cudaHostAllocPortable) == cudaSuccess) {
      pinned_ = true;
      return;
    }
    cudaGetLastError();  // a failed attempt is not the next call's error
    ptr_ = new T[count];
  }
  ~HostBuffer() { release(); }
  HostBuffer(HostBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        count_(std::exchange(o.count_, 0)),
        pinned_(std::exchange(o.pinned_, false)) {}
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    std::swap(pinned_, o.pinned_);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  bool pinned() const { return pinned_; }

 private:
  void release() {
    if (pinned_)
      cudaFreeHost(ptr_);
    else
      delete[] ptr_;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool pinned_ = false;
};

}  // namespace mp
