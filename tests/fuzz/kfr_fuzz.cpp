// Kalles Fraktaler location files: read as a location or refused with one line; a location read
// gives a span, and writes back as a file that reads back to the same location and span.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "io/kfr_location.h"
#include "one_line.h"

namespace {

constexpr int kWidth = 640, kHeight = 360;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

// Whether two spans agree to 15 digits, across a decade's edge too.
bool same_span(const mp::BigDecimal& a, const mp::BigDecimal& b) {
  const std::int64_t de = a.exponent10 - b.exponent10;
  if (de < -1 || de > 1) return false;
  const double ratio = a.mantissa * std::pow(10.0, static_cast<double>(de)) / b.mantissa;
  return std::fabs(ratio - 1.0) < 1e-13;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const mp::KfrResult r = mp::parse_kfr({reinterpret_cast<const char*>(data), size});
  if (!r.ok) {
    mp::fuzz::expect_one_line(r.error, "parse_kfr");
    return 0;
  }
  const mp::KfrLocation& l = r.location;
  if (l.iterations < 1 || l.iterations > mp::kMaxKfrIterations)
    fail("iterations out of range", std::to_string(l.iterations));
  const mp::BigDecimal span = mp::kfr_span(l.zoom, kWidth, kHeight);  // a throw is a crash
  mp::fuzz::expect_one_line(span.text, "kfr_span");
  if (!(span.mantissa >= 1.0 && span.mantissa < 10.0)) fail("span mantissa", span.text);

  std::string text;
  try {
    text = mp::format_kfr(l.re, l.im, span.text, l.iterations, kWidth, kHeight);
  } catch (const std::invalid_argument& e) {
    // Only a zoom at the edge of the range may round past it on the way back.
    if (std::llabs(span.exponent10) < mp::kMaxKfrExponent10 - 2) fail("format_kfr", e.what());
    mp::fuzz::expect_one_line(e.what(), "format_kfr");
    return 0;
  }
  const mp::KfrResult back = mp::parse_kfr(text);
  if (!back.ok) fail("written location does not read back", back.error);
  if (back.location.re != l.re || back.location.im != l.im ||
      back.location.iterations != l.iterations)
    fail("written location reads back otherwise", text.substr(0, 200));
  const mp::BigDecimal again = mp::kfr_span(back.location.zoom, kWidth, kHeight);
  if (!same_span(span, again)) fail("span changed", span.text + " -> " + again.text);
  return 0;
}
