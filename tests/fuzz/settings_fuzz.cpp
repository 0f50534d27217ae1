// settings.json: any text loads as settings or as defaults with one warning line, and what
// loads cleanly saves and loads back the same (never saving what the loader would refuse).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/settings.h"
#include "one_line.h"

namespace {

bool same(const mp::Settings& a, const mp::Settings& b) {
  return a.window_x == b.window_x && a.window_y == b.window_y && a.window_width == b.window_width &&
         a.window_height == b.window_height && a.palette == b.palette &&
         a.colour.density == b.colour.density && a.colour.offset == b.colour.offset &&
         a.colour.stripe == b.colour.stripe;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One file per process, so parallel fuzzing jobs do not share it.
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("mp-fuzz-settings-" + std::to_string(getpid()) + ".json");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
  }
  std::string warning;
  const mp::Settings first = mp::load_settings(file, &warning);
  if (!warning.empty()) {
    mp::fuzz::expect_one_line(warning, "load_settings");
    return 0;
  }
  mp::save_settings(file, first);
  std::string again;
  const mp::Settings second = mp::load_settings(file, &again);
  if (!again.empty() || !same(first, second)) {
    std::fprintf(stderr, "saved settings do not load back: %s\n", again.c_str());
    std::abort();
  }
  return 0;
}
