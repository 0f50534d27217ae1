#include "app/window_command.h"

#include <cstdio>

#include "app/app.h"
#include "commands/commands.h"
#include "io/files.h"
#include "kernel_params.h"

namespace mp {
namespace {

// Below this a frame's memory goes without a word.
constexpr double kQuietFrameMiB = 256;

// Said before the frame is allocated, so that a run that then fails for memory has said why:
// the window holds its frame up to four times over (the renderer's, the upload's, GL's buffer
// and texture on the CPU path).
void say_frame_memory(int width, int height) {
  const double mib = static_cast<double>(width) * height * kFloatsPerPixel * sizeof(float) /
                     static_cast<double>(1 << 20);
  if (mib < kQuietFrameMiB) return;
  std::fprintf(stderr,
               "mandelpipe: a %dx%d window: each copy of its frame is %.0f MiB, up to four "
               "copies: up to %.1f GiB of memory\n",
               width, height, mib, 4 * mib / 1024);
}

}  // namespace

int run_window(const Options& o) {
  if (!o.screenshot.empty()) {
    try {
      check_writable(o.screenshot);
    } catch (const std::exception& e) {
      throw ExitError(2, std::string("--screenshot: ") + e.what());
    }
  }
  if (o.palette_given) find_palette(o.palette);  // fail before a window opens
  if (!o.capture_dir.empty()) {
    try {
      check_writable(std::filesystem::path(o.capture_dir) / "capture.png");
    } catch (const std::exception& e) {
      throw ExitError(2, std::string("--capture-dir: ") + e.what());
    }
  }
  if (o.window_size_given) say_frame_memory(o.width, o.height);
  App app(o);
  return app.run();
}

}  // namespace mp
