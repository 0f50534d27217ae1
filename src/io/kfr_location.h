// Kalles Fraktaler's location files (.kfr): "Key: value" lines, of which the view is Re, Im, Zoom
// and Iterations. Coordinates stay text, digit for digit; zoom and span go through MPFR (a
// 128-bit mantissa with a wide exponent), since deep zooms are far past double's range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mp {

// Longer files are refused before they are read: KF's own are a few kilobytes.
inline constexpr std::size_t kMaxKfrBytes = std::size_t{1} << 20;
inline constexpr std::uint32_t kMaxKfrIterations = 10'000'000;
// Re, Im, Zoom and span lie within 10^-this and 10^this (in magnitude, 0 aside): past the
// deepest span a view takes (kMinSpan, about 10^-80,807,124), so that a location's zoom is refused
// by the view's own limits, as --span is.
inline constexpr std::int64_t kMaxKfrExponent10 = 100'000'000;

struct KfrLocation {
  std::string re, im;  // decimal text as the file has it
  // KF's magnification, as the file has it: the image's height spans 4 / zoom in the complex
  // plane (KF's Settings.tab: "Zoom factor (= 2/radius)"; render.cpp: pixel spacing
  // 2 * radius / height).
  std::string zoom;
  std::uint32_t iterations = 0;
  // KF's Rotate, where the file turns the view (a value other than 0): mandelpipe's views are
  // not turned, so the image shows the place unturned, which kfr_left_out says.
  std::string rotate;
};

// A value of the file as a message shows it: its first 40 bytes, control characters escaped.
std::string kfr_value_text(std::string_view value);

// What of the location the view leaves out, as a note ("" where nothing is).
std::string kfr_left_out(const KfrLocation& k);

struct KfrResult {
  bool ok = false;
  KfrLocation location;  // when ok
  std::string error;     // otherwise: one line, naming the key at fault
};

// A .kfr file's text. Lines end in "\r\n" (as KF writes) or "\n"; blank lines are skipped. Keys
// other than the four and Rotate are read past. Refused: a text over kMaxKfrBytes, a line that is
// not "Key: value", a key given twice, a missing one, a Re or Im that is not a finite decimal
// number ("-1.25", "3e-40"), a Zoom that is not one above 0, values out of kMaxKfrExponent10's
// range, and Iterations outside 1 to kMaxKfrIterations (`own_iterations`: the caller sets the limit
// itself, and a bad or missing Iterations is left at 0 instead).
KfrResult parse_kfr(std::string_view text, bool own_iterations = false);
// The file read (a regular file, at most kMaxKfrBytes) and parsed; errors start with its name.
KfrResult load_kfr(const std::filesystem::path& file, bool own_iterations = false);

// A positive number past double's range: mantissa * 10^exponent10.
struct BigDecimal {
  std::string text;  // 20 significant digits, as "3.5555555555555555556e-1000"
  double mantissa;   // in [1, 10)
  std::int64_t exponent10;
};

// Our span (the image's width in the complex plane; pixels are square) for KF's zoom, a text that
// parse_kfr accepts, on an image of width x height pixels: 4 * width / (height * zoom). Throws
// std::invalid_argument (one line) for anything else.
BigDecimal kfr_span(std::string_view zoom, int width, int height);

// A location file KF opens, with CRLF line ends as it writes them: re and im as given (finite
// decimal numbers), the zoom for `span` (positive decimal text) on a width x height image, and
// Power 2 and FractalType 0 (the Mandelbrot set whatever KF showed before). KF itself raises an
// iteration limit of 10 or less to 200. Throws std::invalid_argument (one line) for values that
// parse_kfr would refuse, the zoom included.
std::string format_kfr(std::string_view re, std::string_view im, std::string_view span,
                       std::uint32_t iterations, int width, int height);

}  // namespace mp
