// The view text (Ctrl+V): read as a view or refused with one line; a view read writes back as
// one line that reads back to the same view.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/view_text.h"
#include "one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const mp::ViewState current;
  const mp::ViewTextResult r =
      mp::parse_view_text({reinterpret_cast<const char*>(data), size}, current);
  if (!r.ok) {
    mp::fuzz::expect_one_line(r.error, "parse_view_text");
    return 0;
  }
  const std::string line = mp::format_view_text(r.state);
  mp::fuzz::expect_one_line(line, "format_view_text");
  const mp::ViewTextResult back = mp::parse_view_text(line, current);
  if (!back.ok || back.state != r.state) {
    std::fprintf(stderr, "'%s' does not read back: %s\n", line.c_str(), back.error.c_str());
    std::abort();
  }
  return 0;
}
