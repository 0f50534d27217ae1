// The extended range (cuda/host_device/floatexp.h) against MPFR's exact arithmetic.
#include "floatexp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mpfr_value.h"

namespace mp {
namespace {

using test::Mp;
using test::set_floatexp;

// Relative difference of a from the exact value, in units of 2^-52.
double ulps_from(FloatExp a, mpfr_srcptr exact) {
  Mp x(200), d(200);
  set_floatexp(x.get(), a);
  mpfr_sub(d.get(), x.get(), exact, MPFR_RNDN);
  if (mpfr_zero_p(exact)) return mpfr_zero_p(d.get()) ? 0 : INFINITY;
  mpfr_div(d.get(), d.get(), exact, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d.get(), MPFR_RNDN)) * 0x1p52;
}

FloatExp random_value(std::mt19937_64& rng, int exp_range) {
  std::uniform_real_distribution<double> m(1.0, 2.0);
  std::uniform_int_distribution<int> e(-exp_range, exp_range);
  std::bernoulli_distribution neg(0.5);
  return {neg(rng) ? -m(rng) : m(rng), e(rng)};
}

TEST(FloatExp, NormalisesDoublesSubnormalsAndZero) {
  EXPECT_EQ(to_floatexp(3.0).m, 1.5);
  EXPECT_EQ(to_floatexp(3.0).e, 1);
  EXPECT_EQ(to_floatexp(-0.375).m, -1.5);
  EXPECT_EQ(to_floatexp(-0.375).e, -2);
  const FloatExp tiny = to_floatexp(5e-320);  // subnormal
  EXPECT_EQ(to_double(tiny), 5e-320);
  EXPECT_EQ(to_floatexp(0.0).m, 0.0);
  EXPECT_EQ(to_floatexp(0.0).e, kZeroExp);
  EXPECT_EQ(to_double(FloatExp{1.5, -5000}), 0.0);
  EXPECT_EQ(to_double(FloatExp{1.5, 5000}), INFINITY);
  EXPECT_EQ(pow2(-1023), 0.0);
  EXPECT_EQ(pow2(-1022), 0x1p-1022);
}

TEST(FloatExp, ArithmeticIsRoundedOnceOrTwiceAtAnyExponent) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const FloatExp a = random_value(rng, 100000), b = random_value(rng, 100000);
    const FloatExp c = {a.m, a.e + static_cast<int>(rng() % 80) - 40};  // near a, for sums
    Mp ea(200), eb(200), ec(200), r(400);
    set_floatexp(ea.get(), a);
    set_floatexp(eb.get(), b);
    set_floatexp(ec.get(), c);
    mpfr_mul(r.get(), ea.get(), eb.get(), MPFR_RNDN);
    EXPECT_LE(ulps_from(a * b, r.get()), 0.5) << i;
    mpfr_div(r.get(), ea.get(), eb.get(), MPFR_RNDN);
    EXPECT_LE(ulps_from(a / b, r.get()), 0.5) << i;
    // A sum within 64 binades is the double sum of the aligned mantissas: the aligned term
    // rounded once, the sum once, so within an ulp of the larger term.
    mpfr_add(r.get(), ea.get(), ec.get(), MPFR_RNDN);
    {
      Mp got(400), err(400), larger(400);
      set_floatexp(got.get(), a + c);
      mpfr_sub(err.get(), got.get(), r.get(), MPFR_RNDN);
      mpfr_abs(larger.get(), ea.get(), MPFR_RNDN);
      if (mpfr_cmpabs(ec.get(), ea.get()) > 0) mpfr_abs(larger.get(), ec.get(), MPFR_RNDN);
      mpfr_div(err.get(), err.get(), larger.get(), MPFR_RNDN);
      EXPECT_LE(std::fabs(mpfr_get_d(err.get(), MPFR_RNDN)), 0x1p-52) << i;
    }
    EXPECT_EQ((a < b), mpfr_less_p(ea.get(), eb.get()) != 0) << i;
  }
}

TEST(FloatExp, ATermFarBelowTheOtherIsDroppedNotWrapped) {
  const FloatExp a{1.25, 0}, tiny{1.5, -3000};
  EXPECT_EQ((a + tiny).m, 1.25);
  EXPECT_EQ((a + tiny).e, 0);
  EXPECT_EQ((tiny + a).m, 1.25);
  const FloatExp zero{};
  EXPECT_EQ((zero + tiny).m, 1.5);
  EXPECT_EQ((zero + tiny).e, -3000);
  EXPECT_EQ((zero * tiny).m, 0.0);
}

TEST(ComplexExp, ProductsAndSumsMatchMpfrAtDeepExponents) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const FloatExp ax = random_value(rng, 5000);
    const FloatExp ay = {random_value(rng, 1).m, ax.e - static_cast<int>(rng() % 20)};
    const FloatExp bx = random_value(rng, 5000);
    const FloatExp by = {random_value(rng, 1).m, bx.e + static_cast<int>(rng() % 20)};
    const ComplexExp a = to_complexexp(ax, ay), b = to_complexexp(bx, by);
    Mp eax(200), eay(200), ebx(200), eby(200), re(400), im(400), t(400);
    set_floatexp(eax.get(), ax);
    set_floatexp(eay.get(), ay);
    set_floatexp(ebx.get(), bx);
    set_floatexp(eby.get(), by);
    mpfr_mul(re.get(), eax.get(), ebx.get(), MPFR_RNDN);
    mpfr_mul(t.get(), eay.get(), eby.get(), MPFR_RNDN);
    mpfr_sub(re.get(), re.get(), t.get(), MPFR_RNDN);
    mpfr_mul(im.get(), eax.get(), eby.get(), MPFR_RNDN);
    mpfr_mul(t.get(), eay.get(), ebx.get(), MPFR_RNDN);
    mpfr_add(im.get(), im.get(), t.get(), MPFR_RNDN);
    const ComplexExp p = a * b;
    // Each part to within a few ulps of the larger part's magnitude.
    const FloatExp big = magnitude(p);
    for (auto [got, exact] :
         {std::pair{FloatExp{p.x, p.e}, re.get()}, {FloatExp{p.y, p.e}, im.get()}}) {
      Mp g(400), d(400), b2(200);
      set_floatexp(g.get(), normalised(got.m, got.e));
      mpfr_sub(d.get(), g.get(), exact, MPFR_RNDN);
      set_floatexp(b2.get(), big);
      mpfr_div(d.get(), d.get(), b2.get(), MPFR_RNDN);
      EXPECT_LE(std::fabs(mpfr_get_d(d.get(), MPFR_RNDN)), 4 * 0x1p-52) << i;
    }
  }
}

}  // namespace
}  // namespace mp
