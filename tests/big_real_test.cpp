#include "model/big_real.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

namespace mp {
namespace {

// A decimal of `digits` significant digits: "-1.2345...".
std::string long_decimal(int digits, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s = "-1.";
  for (int k = 1; k < digits - 1; ++k) s += static_cast<char>('0' + rng() % 10);
  return s + "7";  // a last digit that is not a zero, which %g would drop
}

TEST(BigReal, ParsesDecimalsOfAnyLengthAndExponent) {
  EXPECT_EQ(BigReal::parse("0.25", 64)->to_double(), 0.25);
  EXPECT_EQ(BigReal::parse("1e5", 64)->to_double(), 1e5);
  EXPECT_EQ(BigReal::parse("+3", 64)->to_double(), 3);
  EXPECT_EQ(BigReal::parse("-.5", 64)->to_double(), -0.5);
  const auto deep = BigReal::parse("-1.7400623825793399052e-1000", 128);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->to_double(), -0.0);  // past double's range
  EXPECT_EQ(deep->str(20), "-1.7400623825793399052e-1000");
  EXPECT_EQ(deep->bits(), 128);
}

TEST(BigReal, RefusesWhatIsNotANumber) {
  for (const char* s : {"", " 1", "1 ", "nan", "NaN", "inf", "-inf", "1e", "e5", "1x", "0x10",
                        "1,5", ".", "-", "1e+", "--1", "1e99999999999999"})
    EXPECT_FALSE(BigReal::parse(s, 64)) << s;
}

TEST(BigReal, TwoThousandDigitsRoundTrip) {
  const std::string text = long_decimal(2000, 5);
  const int bits = 2000 * 3322 / 1000 + 8;
  const auto v = BigReal::parse(text, bits);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->str(2000), text);
  EXPECT_EQ(*BigReal::parse(v->str(2000), bits), *v);
}

TEST(BigReal, StrRoundTripsAtItsPrecision) {
  std::mt19937 rng(3);
  for (int k = 0; k < 200; ++k) {
    const int bits = 64 + static_cast<int>(rng() % 2000);
    const auto v = BigReal::parse(long_decimal(bits / 3, rng()), bits);
    ASSERT_TRUE(v);
    const int digits = bits * 30103 / 100000 + 2;  // enough for any value of `bits` bits
    EXPECT_EQ(*BigReal::parse(v->str(digits), bits), *v) << v->str(digits);
  }
}

TEST(BigReal, CopiesAndMovesKeepValueAndPrecision) {
  const BigReal a = *BigReal::parse("1.000000000000000000000000000001", 200);
  BigReal b = a;
  EXPECT_EQ(b, a);
  EXPECT_EQ(b.bits(), 200);
  BigReal c(2.0);
  c = a;
  EXPECT_EQ(c.bits(), 200);
  EXPECT_EQ(c, a);
  BigReal d = std::move(c);
  EXPECT_EQ(d, a);
  c = BigReal(5.0);  // a moved-from value takes a new one
  EXPECT_EQ(c.to_double(), 5.0);
  EXPECT_NE(a.with_bits(64), a);  // the last digit is past 64 bits
  EXPECT_EQ(a.with_bits(300), a);
}

TEST(BigReal, ArithmeticTakesTheWiderPrecision) {
  const BigReal a(1.0, 300), b(3.0, 64);
  EXPECT_EQ((a + b).bits(), 300);
  EXPECT_EQ((b * a).bits(), 300);
  EXPECT_EQ((b - 0.5).bits(), 64);
  EXPECT_EQ((a - b).to_double(), -2.0);
  EXPECT_EQ((a * 0.5).to_double(), 0.5);
  // 1 + 2^-280 is exact at 300 bits.
  const BigReal tiny = a + scaled(to_floatexp(1.0), -280);
  EXPECT_TRUE(a < tiny);
  EXPECT_EQ(tiny - a, BigReal(0.0) + scaled(to_floatexp(1.0), -280));
  EXPECT_EQ((b * to_floatexp(0.5)).to_double(), 1.5);
}

TEST(Span, ParsesAnyExponent) {
  const auto a = parse_span("1e-1000");
  ASSERT_TRUE(a);
  EXPECT_NEAR(log10_of(*a), -1000, 1e-12);
  EXPECT_EQ(span_text(*a), "1e-1000");
  const auto b = parse_span("3.2e-999999");
  ASSERT_TRUE(b);
  EXPECT_NEAR(log10_of(*b), -999999 + std::log10(3.2), 1e-6);
  EXPECT_EQ(span_text(*b), "3.2e-999999");
  EXPECT_EQ(span_text(*b, 2), "3.2e-999999");
  EXPECT_EQ(to_double(*parse_span("0.005")), 0.005);
  EXPECT_EQ(span_text(to_floatexp(3.0)), "3");
  EXPECT_EQ(span_text(to_floatexp(0.005)), "0.005");
}

TEST(Span, RefusesZeroNegativeAndJunk) {
  for (const char* s : {"0", "0.0", "-1", "-1e-500", "nan", "inf", "", "1e-500x", "junk", "1e",
                        "1e-99999999999999"})
    EXPECT_FALSE(parse_span(s)) << s;
}

TEST(Span, ExactTextRoundTrips) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int k = 0; k < 2000; ++k) {
    const FloatExp s{mantissa(rng), static_cast<int>(rng() % 200000) - 100000};
    const std::string text = exact_span_text(s);
    ASSERT_EQ(parse_span(text), s) << text;
  }
  EXPECT_EQ(exact_span_text(to_floatexp(1.5)), "1.5");
  EXPECT_EQ(exact_span_text(to_floatexp(0.1)), "0.1");
}

}  // namespace
}  // namespace mp
