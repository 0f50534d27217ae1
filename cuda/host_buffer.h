// Owning host allocation, page-locked where a GPU copies into it (portable to every device, so
// that copies run at the bus's speed), plain memory otherwise.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "cuda_check.h"

namespace mp {

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  // Page-locked when `pinned` and the runtime can give it; plain memory otherwise.
  // Page-locked memory is made here, faulted in by this thread, then registered: cudaHostAlloc
  // faults and zeroes every page while holding the driver, so that every other thread's launches
  // wait for it, where registering pages already there (huge pages where the kernel gives them)
  // holds the driver a small part of that time (docs/measurements.md).
  HostBuffer(std::size_t count, bool pinned) : count_(count) {
    static_assert(std::is_trivial_v<T>, "raw memory");
    if (!count) return;
    if (!pinned) {
      ptr_ = new T[count];
      return;
    }
    const std::size_t bytes = count * sizeof(T);
    void* p = nullptr;
    if (posix_memalign(&p, kHugePage, bytes) != 0) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // advice: where refused, ordinary pages serve
    for (std::size_t i = 0; i < bytes; i += kPage) static_cast<volatile char*>(p)[i] = 0;
    ptr_ = static_cast<T*>(p);
    raw_ = true;
    if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess)
      pinned_ = true;
    else
      cudaGetLastError();  // a failed attempt is not the next call's error
  }
  ~HostBuffer() { release(); }
  HostBuffer(HostBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        count_(std::exchange(o.count_, 0)),
        pinned_(std::exchange(o.pinned_, false)),
        raw_(std::exchange(o.raw_, false)) {}
  HostBuffer& operator=(HostBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    std::swap(pinned_, o.pinned_);
    std::swap(raw_, o.raw_);
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  bool pinned() const { return pinned_; }
  // No longer page-locked, its contents kept: before the contexts are released
  // (release_contexts), after which no CUDA call is to come from this buffer.
  void unpin() {
    if (pinned_) cudaHostUnregister(ptr_);
    pinned_ = false;
  }

 private:
  static constexpr std::size_t kPage = 4096, kHugePage = std::size_t{2} << 20;
  void release() {
    if (pinned_) cudaHostUnregister(ptr_);
    if (raw_)
      std::free(ptr_);
    else
      delete[] ptr_;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool pinned_ = false;
  bool raw_ = false;  // posix_memalign's, for free()
};

}  // namespace mp
