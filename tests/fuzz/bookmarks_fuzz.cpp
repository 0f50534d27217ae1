// bookmarks.json: parsed into views a renderer can take, or refused with one line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "model/bookmarks.h"
#include "one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    for (const mp::Bookmark& b : mp::parse_bookmarks({reinterpret_cast<const char*>(data), size})) {
      const mp::View& v = b.view;
      if (!mpfr_number_p(v.center_x.get()) || !mpfr_number_p(v.center_y.get()) || !(v.span.m > 0) ||
          v.max_iter < 1 || v.max_iter > mp::kMaxIterations)
        std::abort();
      mp::pixel_grid(v, 64, 48);
    }
  } catch (const std::exception& e) {
    mp::fuzz::expect_one_line(e.what(), "parse_bookmarks");
  }
  return 0;
}
