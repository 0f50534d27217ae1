#include "model/big_real.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace mp {
namespace {

// MPFR reads "nan", "inf" and hexadecimal forms, and lets a sign, digits and an exponent
// be given in ways a view never writes; only plain decimal is a number here.
bool is_decimal(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

mpfr_prec_t clamped_bits(int bits) {
  return std::clamp<mpfr_prec_t>(bits, MPFR_PREC_MIN, MPFR_PREC_MAX);
}

// The result of a binary operation: as many bits as the wider operand.
BigReal result_for(const BigReal& a, int other_bits) {
  return BigReal(0.0, std::max(a.bits(), other_bits));
}

}  // namespace

BigReal::BigReal() : BigReal(0.0) {}

BigReal::BigReal(double v, int bits) {
  mpfr_init2(v_, clamped_bits(bits));
  mpfr_set_d(v_, v, MPFR_RNDN);
}

BigReal::BigReal(const BigReal& o) {
  mpfr_init2(v_, mpfr_get_prec(o.v_));
  mpfr_set(v_, o.v_, MPFR_RNDN);
}

// The moved-from value keeps a valid (smallest) number, so that it can be destroyed or assigned.
BigReal::BigReal(BigReal&& o) noexcept {
  mpfr_init2(v_, MPFR_PREC_MIN);
  mpfr_swap(v_, o.v_);
}

BigReal& BigReal::operator=(const BigReal& o) {
  if (this != &o) {
    mpfr_set_prec(v_, mpfr_get_prec(o.v_));
    mpfr_set(v_, o.v_, MPFR_RNDN);
  }
  return *this;
}

BigReal& BigReal::operator=(BigReal&& o) noexcept {
  mpfr_swap(v_, o.v_);
  return *this;
}

BigReal::~BigReal() {
  mpfr_clear(v_);
}

std::optional<BigReal> BigReal::parse(std::string_view decimal, int bits) {
  if (!is_decimal(decimal)) return std::nullopt;
  const std::string text(decimal);  // mpfr_strtofr wants a terminated string
  BigReal r(0.0, bits);
  char* end = nullptr;
  mpfr_strtofr(r.v_, text.c_str(), &end, 10, MPFR_RNDN);
  // An exponent past MPFR's range reads as inf (refused) or zero (as near as can be).
  if (end != text.c_str() + text.size() || !mpfr_number_p(r.v_)) return std::nullopt;
  return r;
}

std::string BigReal::str(int significant_digits) const {
  char* s = nullptr;
  if (mpfr_asprintf(&s, "%.*RNg", std::max(significant_digits, 1), v_) < 0) return "nan";
  std::string out(s);
  mpfr_free_str(s);
  return out;
}

double BigReal::to_double() const {
  return mpfr_get_d(v_, MPFR_RNDN);
}

int BigReal::bits() const {
  return static_cast<int>(mpfr_get_prec(v_));
}

BigReal BigReal::with_bits(int bits) const {
  BigReal r(0.0, bits);
  mpfr_set(r.v_, v_, MPFR_RNDN);
  return r;
}

BigReal BigReal::of(mpfr_srcptr v) {
  BigReal r(0.0, static_cast<int>(mpfr_get_prec(v)));
  mpfr_set(r.v_, v, MPFR_RNDN);
  return r;
}

BigReal BigReal::plus(FloatExp delta, int bits) const {
  BigReal r(0.0, bits);
  mpfr_add(r.v_, v_, to_bigreal(delta).v_, MPFR_RNDN);
  return r;
}

BigReal operator+(const BigReal& a, const BigReal& b) {
  BigReal r = result_for(a, b.bits());
  mpfr_add(r.v_, a.v_, b.v_, MPFR_RNDN);
  return r;
}
BigReal operator-(const BigReal& a, const BigReal& b) {
  BigReal r = result_for(a, b.bits());
  mpfr_sub(r.v_, a.v_, b.v_, MPFR_RNDN);
  return r;
}
BigReal operator*(const BigReal& a, const BigReal& b) {
  BigReal r = result_for(a, b.bits());
  mpfr_mul(r.v_, a.v_, b.v_, MPFR_RNDN);
  return r;
}
bool operator==(const BigReal& a, const BigReal& b) {
  return mpfr_equal_p(a.v_, b.v_) != 0;
}
bool operator<(const BigReal& a, const BigReal& b) {
  return mpfr_less_p(a.v_, b.v_) != 0;
}

// A double is exact at 53 bits, so these are the BigReal operations on it.
BigReal operator+(const BigReal& a, double b) {
  return a + BigReal(b, 53);
}
BigReal operator-(const BigReal& a, double b) {
  return a - BigReal(b, 53);
}
BigReal operator*(const BigReal& a, double b) {
  return a * BigReal(b, 53);
}
BigReal operator+(const BigReal& a, FloatExp b) {
  return a + to_bigreal(b);
}
BigReal operator-(const BigReal& a, FloatExp b) {
  return a - to_bigreal(b);
}
BigReal operator*(const BigReal& a, FloatExp b) {
  return a * to_bigreal(b);
}

BigReal to_bigreal(FloatExp v) {
  BigReal r(v.m, 53);
  if (v.m != 0) mpfr_mul_2si(r.v_, r.v_, v.e, MPFR_RNDN);  // exact: a power of two
  return r;
}

FloatExp floatexp_of(mpfr_srcptr v) {
  if (mpfr_zero_p(v) || !mpfr_number_p(v)) return {};
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, v, MPFR_RNDN);  // |m| in [0.5, 1)
  return normalised(m, static_cast<int>(e));
}

FloatExp to_floatexp(const BigReal& v) {
  return floatexp_of(v.get());
}

FloatExp quotient(FloatExp a, FloatExp b) {
  if (a.m == 0) return a;
  return normalised(a.m / b.m, a.e - b.e);
}

std::optional<FloatExp> parse_span(std::string_view decimal) {
  const std::optional<BigReal> v = BigReal::parse(decimal, 53);
  if (!v || mpfr_sgn(v->get()) <= 0) return std::nullopt;
  // Past FloatExp's exponent the span is not a view (mpfr's range is wider).
  if (mpfr_get_exp(v->get()) < kZeroExp / 2 || mpfr_get_exp(v->get()) > -(kZeroExp / 2))
    return std::nullopt;
  return to_floatexp(*v);
}

std::string span_text(FloatExp span, int digits) {
  return to_bigreal(span).str(digits);
}

std::string exact_span_text(FloatExp span) {
  for (int digits = 1; digits < 17; ++digits) {
    const std::string s = span_text(span, digits);
    if (parse_span(s) == span) return s;
  }
  return span_text(span, 17);
}

double log10_of(FloatExp v) {
  return v.e * std::log10(2.0) + std::log10(std::abs(v.m));
}

}  // namespace mp
