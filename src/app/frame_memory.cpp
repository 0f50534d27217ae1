#include "app/frame_memory.h"

#include <cstdio>

#include "kernel_params.h"

namespace mp {
namespace {

// Below this a frame's memory goes without a word.
constexpr double kQuietFrameMiB = 256;

}  // namespace

std::string frame_memory_notice(int width, int height) {
  // The window holds its frame up to four times over (the renderer's, the upload's, GL's buffer
  // and texture on the CPU path).
  const double mib = static_cast<double>(width) * height * kFloatsPerPixel * sizeof(float) /
                     static_cast<double>(1 << 20);
  if (mib < kQuietFrameMiB) return "";
  char text[160];
  std::snprintf(text, sizeof text,
                "a %dx%d window: each copy of its frame is %.0f MiB, up to four copies: up to "
                "%.1f GiB of memory",
                width, height, mib, 4 * mib / 1024);
  return text;
}

}  // namespace mp
