#include "io/kfr_location.h"

#include "io/printable.h"
#include "render/mpfr_temps.h"

#include <mpfr.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace mp {

std::string kfr_value_text(std::string_view value) {
  return printable(value.substr(0, 40)) + (value.size() > 40 ? "..." : "");
}

namespace {

// A decimal number's text read for its sign and size, and rewritten as digits and a power of
// ten: MPFR takes its decimal point from the locale, this form has none.
struct Decimal {
  bool negative = false;
  bool zero = true;
  std::int64_t exponent10 = 0;  // of the leading digit, when not zero
  std::string plain;            // "[-]DIGITSeN", when not zero
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string range_text() {
  return "(10^-" + std::to_string(kMaxKfrExponent10) + " to 10^" +
         std::to_string(kMaxKfrExponent10) + ")";
}

// The number in `s` ("-1.25", "3e-40", ".5", "7."), or why not: "is not a decimal number" (inf
// and nan among them) or "is out of range".
std::optional<Decimal> read_decimal(std::string_view s, std::string& why) {
  why = "is not a decimal number";
  Decimal d;
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) d.negative = s[i++] == '-';
  const std::size_t int_begin = i;
  while (i < n && is_digit(s[i])) ++i;
  const std::size_t int_end = i;
  std::size_t frac_begin = i, frac_end = i;
  if (i < n && s[i] == '.') {
    frac_begin = ++i;
    while (i < n && is_digit(s[i])) ++i;
    frac_end = i;
  }
  if (int_end == int_begin && frac_end == frac_begin) return std::nullopt;
  std::int64_t e = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool e_negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) e_negative = s[i++] == '-';
    const std::size_t e_begin = i;
    while (i < n && is_digit(s[i])) ++i;
    if (i == e_begin) return std::nullopt;
    std::size_t first = e_begin;
    while (first + 1 < i && s[first] == '0') ++first;
    // Past 9 digits nothing brings the number back in range: the text is at most a MiB long.
    if (i - first > 9) {
      why = "is out of range " + range_text();
      return std::nullopt;
    }
    for (std::size_t k = first; k < i; ++k) e = e * 10 + (s[k] - '0');
    if (e_negative) e = -e;
  }
  if (i != n) return std::nullopt;

  std::string digits;
  digits.reserve(int_end - int_begin + frac_end - frac_begin);
  digits.append(s.substr(int_begin, int_end - int_begin));
  digits.append(s.substr(frac_begin, frac_end - frac_begin));
  const std::size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) return d;  // zero, whatever its exponent
  d.zero = false;
  const auto int_digits = static_cast<std::int64_t>(int_end - int_begin);
  d.exponent10 = int_digits - static_cast<std::int64_t>(lead) - 1 + e;
  if (d.exponent10 > kMaxKfrExponent10 || d.exponent10 < -kMaxKfrExponent10) {
    why = "is out of range " + range_text();
    return std::nullopt;
  }
  const auto frac_digits = static_cast<std::int64_t>(frac_end - frac_begin);
  d.plain = (d.negative ? "-" : "") + digits.substr(lead) + "e" + std::to_string(e - frac_digits);
  return d;
}

// The finite decimal number in `value` (above 0 if `positive`), or nothing and `error` saying why.
std::optional<Decimal> checked_decimal(std::string_view value, bool positive, std::string& error) {
  std::string why;
  std::optional<Decimal> d = read_decimal(value, why);
  if (d && positive && (d->negative || d->zero)) {
    d.reset();
    why = "is not above 0";
  }
  if (!d) error = "'" + kfr_value_text(value) + "' " + why;
  return d;
}

// A whole number from 1 to kMaxKfrIterations, digits only, or nothing.
std::optional<std::uint32_t> read_iterations(std::string_view value) {
  std::size_t first = 0;
  while (first + 1 < value.size() && value[first] == '0') ++first;
  if (value.empty() || value.size() - first > 8) return std::nullopt;
  std::uint32_t n = 0;
  for (const char c : value) {
    if (!is_digit(c)) return std::nullopt;
    n = n * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (n < 1 || n > kMaxKfrIterations) return std::nullopt;
  return n;
}

KfrResult failed(std::string error) {
  KfrResult r;
  r.error = std::move(error);
  return r;
}

// MPFR numbers of 128 bits (38 digits): 20 are shown, and the rest absorb the rounding.
constexpr int kKfrBits = 128;

// 4 * width / (height * x) for a positive decimal x in range: the span for KF's zoom x, and the
// zoom for a span x. `digits` significant digits and the leading one's power of ten.
std::pair<std::string, std::int64_t> four_width_over_height_times(const Decimal& x, int width,
                                                                  int height, int digits) {
  MpfrTemps<2> m(kKfrBits);
  mpfr_ptr q = m[0], v = m[1];
  char* end = nullptr;
  mpfr_strtofr(v, x.plain.c_str(), &end, 10, MPFR_RNDN);
  if (*end != '\0' || !mpfr_regular_p(v))
    throw std::logic_error("MPFR refused " + kfr_value_text(x.plain));
  mpfr_set_si(q, 4, MPFR_RNDN);
  mpfr_mul_si(q, q, width, MPFR_RNDN);
  mpfr_div_si(q, q, height, MPFR_RNDN);
  mpfr_div(q, q, v, MPFR_RNDN);
  mpfr_exp_t e = 0;
  const std::unique_ptr<char, void (*)(char*)> text(
      mpfr_get_str(nullptr, &e, 10, static_cast<std::size_t>(digits), q, MPFR_RNDN), mpfr_free_str);
  if (!text) throw std::logic_error("MPFR could not write a number");
  return {text.get(), static_cast<std::int64_t>(e) - 1};  // text is 0.DIGITS * 10^e
}

void check_size(int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument("image size " + std::to_string(width) + "x" +
                                std::to_string(height) + " is not at least 1x1");
}

// The decimal in `value`, or std::invalid_argument naming `what`.
Decimal decimal_or_throw(std::string_view what, std::string_view value, bool positive) {
  std::string error;
  std::optional<Decimal> d = checked_decimal(value, positive, error);
  if (!d) throw std::invalid_argument(std::string(what) + ": " + error);
  return *std::move(d);
}

}  // namespace

KfrResult parse_kfr(std::string_view text, bool own_iterations) {
  if (text.size() > kMaxKfrBytes)
    return failed("over 1 MiB (" + std::to_string(text.size()) +
                  " bytes): not a Kalles Fraktaler location file");
  // A byte order mark, as editors on Windows start a UTF-8 file with, is no part of the first key.
  constexpr std::string_view kBom = "\xef\xbb\xbf";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  // The view's four keys, which must be there, then Rotate, which may.
  constexpr std::size_t kNeeded = 4;
  constexpr std::array<std::string_view, kNeeded + 1> kKeys{"Re", "Im", "Zoom", "Iterations",
                                                            "Rotate"};
  std::array<std::optional<std::string_view>, kKeys.size()> values;
  std::unordered_map<std::string_view, std::size_t> seen;  // key -> its line
  std::size_t line_no = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::size_t colon = line.find(':');
    bool key_ok = colon != std::string_view::npos && colon > 0;
    for (std::size_t k = 0; key_ok && k < colon; ++k) {
      const char c = line[k];
      key_ok = is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    }
    if (!key_ok)
      return failed("line " + std::to_string(line_no) + " is not 'Key: value': '" +
                    kfr_value_text(line) + "'");
    const std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    value.remove_prefix(std::min(value.size(), value.find_first_not_of(" \t")));
    value.remove_suffix(value.size() - (value.find_last_not_of(" \t") + 1));
    if (const auto [it, added] = seen.emplace(key, line_no); !added)
      return failed(std::string(key) + ": given twice (lines " + std::to_string(it->second) +
                    " and " + std::to_string(line_no) + ")");
    for (std::size_t k = 0; k < kKeys.size(); ++k)
      if (key == kKeys[k]) values[k] = value;
  }
  // The view's place first, each key's fault by name; Iterations only where the caller needs it.
  for (std::size_t k = 0; k < 3; ++k)
    if (!values[k]) return failed(std::string(kKeys[k]) + ": missing");
  for (std::size_t k = 0; k < 3; ++k) {
    std::string error;
    if (!checked_decimal(*values[k], kKeys[k] == "Zoom", error))
      return failed(std::string(kKeys[k]) + ": " + error);
  }
  if (!values[3] && !own_iterations) return failed("Iterations: missing");
  const std::optional<std::uint32_t> iterations =
      values[3] ? read_iterations(*values[3]) : std::nullopt;
  if (!iterations && !own_iterations)
    return failed("Iterations: '" + kfr_value_text(*values[3]) +
                  "' is not a whole number from 1 to " + std::to_string(kMaxKfrIterations));

  KfrResult r;
  r.ok = true;
  r.location.re = *values[0];
  r.location.im = *values[1];
  r.location.zoom = *values[2];
  r.location.iterations = iterations.value_or(0);
  // Any text but a zero ("0", "0.000000") turns the view, or may.
  if (const auto& rotate = values[kNeeded]) {
    std::string why;
    const std::optional<Decimal> angle = read_decimal(*rotate, why);
    if (!angle || !angle->zero) r.location.rotate = kfr_value_text(*rotate);
  }
  return r;
}

std::string kfr_left_out(const KfrLocation& k) {
  if (k.rotate.empty()) return "";
  return "Rotate: " + k.rotate + " is left out: mandelpipe's views are not turned";
}

KfrResult load_kfr(const std::filesystem::path& file, bool own_iterations) {
  const std::string name = path_text(file.string());
  struct stat st {};
  // Checked before opening: a FIFO would block the reader, a device never end.
  if (::stat(file.c_str(), &st) != 0)
    return failed("cannot read " + name + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return failed("cannot read " + name + ": not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > kMaxKfrBytes)
    return failed(name + ": over 1 MiB (" + std::to_string(st.st_size) +
                  " bytes): not a Kalles Fraktaler location file");
  std::ifstream in(file, std::ios::binary);
  if (!in) return failed("cannot read " + name + ": " + std::strerror(errno));
  std::string text(kMaxKfrBytes + 1, '\0');  // one more, so that a file grown since shows
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad() || (!in && !in.eof())) return failed("cannot read " + name);
  text.resize(static_cast<std::size_t>(in.gcount()));
  KfrResult r = parse_kfr(text, own_iterations);
  if (!r.ok) r.error = name + ": " + r.error;
  return r;
}

BigDecimal kfr_span(std::string_view zoom, int width, int height) {
  check_size(width, height);
  const Decimal z = decimal_or_throw("Zoom", zoom, true);
  const auto [digits, exponent10] = four_width_over_height_times(z, width, height, 20);
  BigDecimal span;
  span.exponent10 = exponent10;
  span.mantissa = static_cast<double>(std::stoll(digits.substr(0, 15))) / 1e14;
  std::string fraction = digits.substr(1);
  fraction.erase(fraction.find_last_not_of('0') + 1);
  span.text = digits.substr(0, 1) + (fraction.empty() ? "" : "." + fraction) + "e" +
              std::to_string(exponent10);
  return span;
}

std::string format_kfr(std::string_view re, std::string_view im, std::string_view span,
                       std::uint32_t iterations, int width, int height) {
  check_size(width, height);
  decimal_or_throw("Re", re, false);
  decimal_or_throw("Im", im, false);
  if (iterations < 1 || iterations > kMaxKfrIterations)
    throw std::invalid_argument("Iterations: " + std::to_string(iterations) + " is not from 1 to " +
                                std::to_string(kMaxKfrIterations));
  const Decimal s = decimal_or_throw("span", span, true);
  // 17 digits and a capital E, as KF writes its zoom.
  const auto [digits, exponent10] = four_width_over_height_times(s, width, height, 17);
  if (exponent10 > kMaxKfrExponent10 || exponent10 < -kMaxKfrExponent10)
    throw std::invalid_argument("span: '" + kfr_value_text(span) + "' gives a zoom out of range " +
                                range_text());
  const std::string zoom =
      digits.substr(0, 1) + "." + digits.substr(1) + "E" + std::to_string(exponent10);
  std::string out;
  out.reserve(re.size() + im.size() + 128);
  out.append("Re: ").append(re).append("\r\n");
  out.append("Im: ").append(im).append("\r\n");
  out.append("Zoom: ").append(zoom).append("\r\n");
  out.append("Iterations: ").append(std::to_string(iterations)).append("\r\n");
  out.append("FractalType: 0\r\nPower: 2\r\n");
  return out;
}

}  // namespace mp
