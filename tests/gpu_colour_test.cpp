// render's colour kernel against the CPU's colouring of the same samples: byte for byte, since
// both run the one formula (cuda/host_device/colour.h) with every operation rounded as written.
// Needs a CUDA GPU; skips with the reason elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "colour_kernel.h"
#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "io/embedded.h"
#include "model/palette.h"

namespace mp {
namespace {

using GpuColourTest = CudaDeviceTest<>;

// Samples as the kernels leave them: smooth values over the range of iteration counts (many on
// the LUT's texel edges and the palette's wrap, where a rounding would show), interior points,
// and the colouring term over [-1, 1].
std::vector<float> samples(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> d(static_cast<std::size_t>(count) * kFloatsPerPixel);
  for (int i = 0; i < count; ++i) {
    float smooth = std::exp2(unit(rng) * 20.0f) - 1.0f;
    if (i % 7 == 0) smooth = -1.0f;                                       // inside
    if (i % 11 == 0) smooth = std::exp2(static_cast<float>(i % 19)) - 1;  // t = 0 exactly
    if (i % 13 == 0) smooth = std::exp2((i % 256 + 0.5f) / 256.0f) - 1;   // on a texel's centre
    d[static_cast<std::size_t>(i) * kFloatsPerPixel] = smooth;
    d[static_cast<std::size_t>(i) * kFloatsPerPixel + 1] = unit(rng) * 2.0f - 1.0f;
  }
  return d;
}

TEST_F(GpuColourTest, TheKernelColoursAsTheCpuDoesByteForByte) {
  const std::vector<Palette> palettes = parse_palettes(embedded::palettes_json);
  // Densities to the panel's end too ("fit to image" sets hundreds at deep views), where an ulp
  // of the log is a larger step of the palette.
  const ColourParams settings[] = {{1.0f, 0.0f, 0.6f},
                                   {2.5f, 0.37f, 1.0f},
                                   {0.3f, 0.9f, 0.0f},
                                   {377.0f, 0.153f, 0.6f},
                                   {kMaxDensity, 0.5f, 0.2f}};
  for (int ss = 1; ss <= 3; ++ss) {
    const int w = 97, h = 53, gw = w * ss, gh = h * ss;
    const std::size_t pitch = static_cast<std::size_t>(w) * 3 + 5;  // rows apart, as in a band
    const std::vector<float> data = samples(gw * gh, static_cast<unsigned>(ss));
    DeviceBuffer<float> d_data(data.size());
    CUDA_CHECK(
        cudaMemcpy(d_data.get(), data.data(), data.size() * sizeof(float), cudaMemcpyHostToDevice));
    DeviceBuffer<std::uint8_t> d_rgb(pitch * h);
    for (const Palette& palette : palettes)
      for (const ColourParams& c : settings) {
        ColourLook look{};
        const std::vector<std::uint8_t> lut = build_lut(palette);
        std::copy(lut.begin(), lut.end(), look.lut);
        look.params = c;
        colour_on_device(d_data.get(), gw, gh, ss, look, d_rgb.get(), pitch, nullptr);
        std::vector<std::uint8_t> gpu(pitch * h);
        CUDA_CHECK(cudaMemcpy(gpu.data(), d_rgb.get(), gpu.size(), cudaMemcpyDeviceToHost));
        std::vector<std::uint8_t> cpu(pitch * h);
        colour_rows(data.data(), gw, w, h, ss, lut, c, cpu.data(), pitch);
        long differing = 0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w * 3; ++x)
            differing += cpu[static_cast<std::size_t>(y) * pitch + x] !=
                         gpu[static_cast<std::size_t>(y) * pitch + x];
        EXPECT_EQ(differing, 0) << palette.name << ", ss " << ss << ", density " << c.density;
      }
  }
}

}  // namespace
}  // namespace mp
