// The colour shader against its CPU twin (colourize), through a real off-screen GL context.
// Mesa's software GL is enough, so this runs on CI too; skips only where EGL is missing (fails
// there under MP_REQUIRE_EGL).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gl/colourizer.h"
#include "gl/egl_context.h"
#include "gl/gpu_timer.h"
#include "gl/offscreen_target.h"
#include "gl/surface.h"
#include "io/embedded.h"
#include "kernel_params.h"
#include "required.h"

namespace mp {
namespace {

TEST(GlPalette, ShaderMatchesCpuColourMapping) {
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>();
  } catch (const std::exception& e) {
    if (required("MP_REQUIRE_EGL")) FAIL() << e.what();
    GTEST_SKIP() << e.what();
  }
  const int w = 97, h = 61;
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> smooth(0.0f, 5000.0f), aux(-1.0f, 1.0f);
  auto surface = gl::make_host_surface(w, h);
  float* data = surface->begin_frame();
  for (int i = 0; i < w * h; ++i) {
    data[i * kFloatsPerPixel] = (i % 11 == 0) ? -1.0f : smooth(rng);  // some interior points
    data[i * kFloatsPerPixel + 1] = aux(rng);
  }
  std::vector<float> copy(data, data + w * h * kFloatsPerPixel);
  surface->end_frame();

  for (const Palette& pal : parse_palettes(embedded::palettes_json)) {
    const ColourParams params{1.7f, 0.3f, 0.6f};
    gl::OffscreenTarget target(w, h);
    target.bind();
    gl::Colourizer c;
    c.set_palette(pal);
    c.draw(*surface, params);
    const auto got = target.read_rgba();
    std::vector<std::uint8_t> want(got.size());
    colourize_image(copy.data(), w, h, build_lut(pal), params, want.data());
    int worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      worst = std::max(worst, std::abs(got[i] - want[i]));
    // GL filters the LUT with reduced-precision weights and its log2 is not libm's.
    EXPECT_LE(worst, 4) << pal.name << " on " << egl->description();
  }
}

// A software GL (Mesa's llvmpipe on CI and machines without a GPU) draws on the CPU: its timer
// queries time that, and the figures say so rather than "GPU".
TEST(GlTimer, ASoftwareRendererIsSaidToTimeTheCpu) {
  EXPECT_TRUE(gl::is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
  EXPECT_TRUE(gl::is_software_renderer("softpipe"));
  EXPECT_FALSE(gl::is_software_renderer("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
  std::unique_ptr<gl::EglContext> egl;
  try {
    egl = std::make_unique<gl::EglContext>();
  } catch (const std::exception& e) {
    if (required("MP_REQUIRE_EGL")) FAIL() << e.what();
    GTEST_SKIP() << e.what();
  }
  const std::string renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string said = gl::timer_queries_time();
  if (gl::is_software_renderer(renderer))
    EXPECT_EQ(said.rfind("CPU (", 0), 0u) << renderer << ": " << said;
  else
    EXPECT_EQ(said, "GPU") << renderer;
}

}  // namespace
}  // namespace mp
