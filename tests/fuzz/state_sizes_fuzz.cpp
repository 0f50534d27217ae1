// The state files (settings.json, bookmarks.json, imgui.ini) at sizes around their caps, which
// inputs of a few KiB never reach: one over its cap is refused in one line and not read, one
// within it is read whole, and loads or is refused in one line.
//
// Input: a byte choosing the file, two (little-endian, signed) for the file's size less its cap,
// one choosing what fills the file past the rest of the input, which comes first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/bookmark_store.h"
#include "io/settings.h"
#include "one_line.h"

namespace {

enum Kind { kSettings, kBookmarks, kLayout };

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

// The warning of a file over its cap: one line that says so.
void expect_refused_for_size(const std::string& warning, const char* what) {
  mp::fuzz::expect_one_line(warning, what);
  if (warning.find("larger than") == std::string::npos) fail(what, "not refused for its size");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const Kind kind = static_cast<Kind>(data[0] % 3);
  const auto offset = static_cast<std::int16_t>(data[1] | data[2] << 8);
  const char fills[] = {' ', '\n', '\0', '}'};
  const char fill = fills[data[3] % 4];
  const std::uintmax_t cap = kind == kLayout ? mp::kMaxLayoutFileBytes : mp::kMaxStateFileBytes;
  const std::size_t file_size = static_cast<std::size_t>(cap + offset);
  std::string text(reinterpret_cast<const char*>(data + 4), size - 4);
  text.resize(file_size, fill);

  // One file per process, so parallel fuzzing jobs do not share it.
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("mp-fuzz-state-sizes-" + std::to_string(getpid()) + ".json");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) std::abort();
  }
  const bool over = file_size > cap;

  std::string warning;
  const std::optional<std::string> read = mp::read_state_file(file, &warning, cap);
  if (over) {
    if (read) fail("read_state_file", "read a file over its cap");
    expect_refused_for_size(warning, "read_state_file");
  } else if (!warning.empty() || !read || *read != text) {
    fail("read_state_file", "did not read a file within its cap whole: " + warning);
  }

  if (kind == kSettings) {
    std::string why;
    mp::load_settings(file, &why);
    if (over) expect_refused_for_size(why, "load_settings");
    if (!why.empty()) mp::fuzz::expect_one_line(why, "load_settings");
  } else if (kind == kBookmarks) {
    const mp::BookmarkStore store(file);
    if (over) expect_refused_for_size(store.problem(), "BookmarkStore");
    if (!store.problem().empty()) mp::fuzz::expect_one_line(store.problem(), "BookmarkStore");
  }
  return 0;
}
