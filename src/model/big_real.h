// A real number with as many bits as a view's depth needs (MPFR underneath), and the span's
// FloatExp to and from decimal text: a view at span 1e-1000 needs a centre of over 3,000 bits
// and a span far below double's range.
#pragma once

#include <mpfr.h>

#include <optional>
#include <string>
#include <string_view>

#include "floatexp.h"

namespace mp {

inline constexpr int kDefaultBits = 64;

class BigReal {
 public:
  BigReal();  // zero, kDefaultBits
  explicit BigReal(double v, int bits = kDefaultBits);
  BigReal(const BigReal& o);
  BigReal(BigReal&& o) noexcept;
  BigReal& operator=(const BigReal& o);
  BigReal& operator=(BigReal&& o) noexcept;
  ~BigReal();

  // A finite decimal number, all of the text ("-1.25", "3e-1000", digits without end), rounded
  // to `bits`; nothing for anything else (empty, junk after it, nan, inf).
  static std::optional<BigReal> parse(std::string_view decimal, int bits);

  // In `significant_digits` digits, as printf's %g writes (trailing zeros dropped, an exponent
  // where the number is large or small): parse() at the same precision reads back the nearest
  // value to the text.
  std::string str(int significant_digits) const;
  double to_double() const;
  int bits() const;
  // The same value rounded to (or widened to) `bits`.
  BigReal with_bits(int bits) const;
  // An MPFR number's value, at its precision.
  static BigReal of(mpfr_srcptr v);
  // this + delta rounded once, to `bits`: a move of the centre by a fraction of a pixel stays
  // exact however many bits the two are apart.
  BigReal plus(FloatExp delta, int bits) const;

  mpfr_srcptr get() const { return v_; }

  friend BigReal operator+(const BigReal& a, const BigReal& b);
  friend BigReal operator-(const BigReal& a, const BigReal& b);
  friend BigReal operator*(const BigReal& a, const BigReal& b);
  friend bool operator==(const BigReal& a, const BigReal& b);
  friend bool operator<(const BigReal& a, const BigReal& b);
  friend BigReal to_bigreal(FloatExp v);

 private:
  mpfr_t v_;
};

BigReal operator+(const BigReal& a, double b);
BigReal operator-(const BigReal& a, double b);
BigReal operator*(const BigReal& a, double b);
BigReal operator+(const BigReal& a, FloatExp b);
BigReal operator-(const BigReal& a, FloatExp b);
BigReal operator*(const BigReal& a, FloatExp b);
inline bool operator!=(const BigReal& a, const BigReal& b) {
  return !(a == b);
}

// A FloatExp exactly, at 53 bits (its mantissa's).
BigReal to_bigreal(FloatExp v);
// The nearest FloatExp (its double mantissa rounded to nearest); of an MPFR number too (0 for
// what is not a number).
FloatExp to_floatexp(const BigReal& v);
FloatExp floatexp_of(mpfr_srcptr v);

// FloatExp has no equality of its own; a view's span is compared with it. Both are normalised,
// so equal values have equal parts.
inline bool operator==(FloatExp a, FloatExp b) {
  return a.m == b.m && a.e == b.e;
}
inline bool operator!=(FloatExp a, FloatExp b) {
  return !(a == b);
}
// a / b (b non-zero), rounded as a double division of the mantissas.
FloatExp quotient(FloatExp a, FloatExp b);

// A span as typed: a finite number > 0 with any exponent ("1e-999999"); nothing otherwise.
std::optional<FloatExp> parse_span(std::string_view decimal);
// In `digits` significant digits with a decimal exponent of any size: "3.2e-457", "0.005".
std::string span_text(FloatExp span, int digits = 6);
// The fewest digits (at most 17) that parse_span reads back to exactly `span`: for files.
std::string exact_span_text(FloatExp span);
// log10 of a positive value, for any exponent.
double log10_of(FloatExp v);

}  // namespace mp
