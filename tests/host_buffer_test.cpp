// HostBuffer's page-locked memory, made by registering pages this thread faulted in: the GPU's
// copies land in it, it says it is page-locked, a move hands it over whole, and unpinned it keeps
// its bytes. Needs a CUDA GPU;
// skips with the reason elsewhere.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "host_buffer.h"

namespace mp {
namespace {

using HostBufferTest = CudaDeviceTest<>;

// Over two huge pages and not a whole number of them, so that the last page is a partial one.
constexpr std::size_t kCount = (std::size_t{5} << 20) + 12345;

TEST_F(HostBufferTest, PinnedMemoryIsPageLockedAndTakesTheGpusCopies) {
  HostBuffer<std::uint8_t> pinned(kCount, true);
  ASSERT_TRUE(pinned.pinned());
  cudaPointerAttributes a{};
  CUDA_CHECK(cudaPointerGetAttributes(&a, pinned.get()));
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  std::vector<std::uint8_t> want(kCount);
  for (std::size_t i = 0; i < kCount; ++i) want[i] = static_cast<std::uint8_t>(i * 131 + (i >> 16));
  DeviceBuffer<std::uint8_t> d(kCount);
  CUDA_CHECK(cudaMemcpy(d.get(), want.data(), kCount, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(pinned.get(), d.get(), kCount, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::vector<std::uint8_t>(pinned.get(), pinned.get() + kCount), want);
  // A move hands the registration over: the moved-to buffer is still page-locked, and the
  // moved-from one holds nothing to free twice.
  HostBuffer<std::uint8_t> moved(std::move(pinned));
  EXPECT_TRUE(moved.pinned());
  EXPECT_EQ(pinned.get(), nullptr);
  CUDA_CHECK(cudaPointerGetAttributes(&a, moved.get()));
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
}

// Unpinned before the contexts go (release_contexts): no longer page-locked, its bytes kept.
TEST_F(HostBufferTest, UnpinnedMemoryKeepsItsBytesAndIsNoLongerPageLocked) {
  HostBuffer<std::uint8_t> buffer(kCount, true);
  ASSERT_TRUE(buffer.pinned());
  for (std::size_t i = 0; i < kCount; ++i) buffer.get()[i] = static_cast<std::uint8_t>(i * 7);
  buffer.unpin();
  EXPECT_FALSE(buffer.pinned());
  cudaPointerAttributes a{};
  CUDA_CHECK(cudaPointerGetAttributes(&a, buffer.get()));
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < kCount; ++i)
    wrong += buffer.get()[i] != static_cast<std::uint8_t>(i * 7);
  EXPECT_EQ(wrong, 0u);
  buffer.unpin();  // twice: nothing more to undo
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(HostBufferTest, PlainMemoryIsNotPageLocked) {
  HostBuffer<float> plain(1000, false);
  EXPECT_FALSE(plain.pinned());
  cudaPointerAttributes a{};
  CUDA_CHECK(cudaPointerGetAttributes(&a, plain.get()));
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
}

}  // namespace
}  // namespace mp
