#include "io/printable.h"

#include <cstdio>

namespace mp {
namespace {

// The length of the UTF-8 character at text[i] if it is a valid one of two or more bytes and not
// a C1 control (U+0080 to U+009F, which some terminals obey as ESC sequences); 0 otherwise.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  std::size_t n = 0;
  char32_t code = 0, least = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, code = c & 0x1F, least = 0xA0;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, code = c & 0x0F, least = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, code = c & 0x07, least = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    code = code << 6 | (b & 0x3F);
  }
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  return code >= least && code <= 0x10FFFF && !surrogate ? n : 0;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = printable_utf8_length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      }
      ++i;
    }
  }
  return out;
}

}  // namespace mp
