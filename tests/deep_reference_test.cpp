// A deep view's reference (src/session/deep_reference.*): where it is made and which views it
// serves.
#include "session/deep_reference.h"

#include <gtest/gtest.h>

#include <string>

#include "render/mpfr_temps.h"
#include "render/nucleus.h"

namespace mp {
namespace {

View view_of(const std::string& x, const std::string& y, const std::string& span, unsigned iters) {
  return *parse_view(x, y, span, iters);
}

// The minibrot of period 133 near i, about 1.4e-99 across (the digits from newton_nucleus).
const std::string kNucleusX =
    "-2.8746738709911711313587400396870764265927866835711251852350600795197350587946998122487577"
    "794952845346324586207476065879391063947636e-50";
const std::string kNucleusY =
    "9.99999999999999999999999999999999999999999999999990391878093350454507784142698728212117335"
    "36976797498590850573760529183579836058283e-01";

TEST(DeepReference, AtTheCentreWhereItsOrbitLasts) {
  const View v = view_of(kNucleusX, kNucleusY, "8e-99", 5000);
  const auto ref = make_reference(v, 320, 180);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->nucleus_period, 0u);
  EXPECT_FALSE(ref->orbit.escaped);
  EXPECT_EQ(ref->orbit.z.size(), 5001u);
  EXPECT_TRUE(ref->x == v.center_x.with_bits(ref->x.bits()));
  EXPECT_TRUE(serves(*ref, v, 320, 180));
  EXPECT_EQ(ref->view_period, 133u);  // the ball method's, for the automatic limit's floor
}

// Seahorse valley at 1e-20, where pixels escape only after thousands of steps: no minibrot of a
// period under 500 is in view or near it, so the automatic limit has no period to go by.
TEST(DeepReference, NoPeriodWhereNoMinibrotIsInOrNearTheViewWithinTheLimit) {
  const View v = view_of("-0.743643887037158704752191506114774",
                         "0.131825904205311970493132056385139", "1e-20", 500);
  const auto ref = make_reference(v, 160, 90, nullptr, nullptr, false);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->view_period, 0u);
}

TEST(DeepReference, AtAMinibrotsNucleusWhereTheCentreEscapesEarly) {
  // Three minibrot sizes to the right of the nucleus: outside it, escaping after some 1200 steps.
  View v = view_of(kNucleusX, kNucleusY, "8e-99", 5000);
  v.center_x = v.center_x + to_floatexp(3e-99);
  const auto ref = make_reference(v, 320, 180);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->nucleus_period, 133u);
  EXPECT_EQ(ref->view_period, 133u);
  EXPECT_GT(ref->centre_escaped_at, 100u);
  EXPECT_LT(ref->centre_escaped_at, 5000u);
  EXPECT_FALSE(ref->orbit.escaped);  // a nucleus's orbit is periodic
  // The nucleus, to far better than a pixel (2.5e-101): its digits above agree to 1e-130.
  const FloatExp off = to_floatexp(ref->x - view_of(kNucleusX, kNucleusY, "8e-99", 5000).center_x);
  EXPECT_LT(off.e, -340);
  EXPECT_TRUE(serves(*ref, v, 320, 180));
}

// A view a hundredth of the period-133 minibrot's width (1.4e-99) across, a tenth of that width
// from its nucleus: the nucleus out of view, its period found as the one near it.
TEST(DeepReference, ThePeriodOfTheMinibrotWhoseBoundaryTheViewIsOn) {
  View v = view_of(kNucleusX, kNucleusY, "1e-101", 2000);
  v.center_x = v.center_x + to_floatexp(1.4e-100);
  const auto ref = make_reference(v, 160, 90, nullptr, nullptr, false);
  ASSERT_TRUE(ref);
  EXPECT_EQ(ref->view_period, 133u);
  EXPECT_FALSE(ref->period_in_view);
}

// Newton's method for period 4 from beside -1 comes to -1, the nucleus of period 2 (its orbit
// all but 0 after two steps): no minibrot of period 4 is there, and none is said found (its size
// estimate had been 1e111, past any pixel, and taken).
TEST(DeepReference, ANucleusOfALowerPeriodIsNotOneOfThePeriodAsked) {
  const int bits = 200;
  MpfrTemps<2> c(bits);
  mpfr_set_d(c[0], -1.0000001, MPFR_RNDN);
  mpfr_set_d(c[1], 1e-8, MPFR_RNDN);
  const Nucleus n = newton_nucleus(c[0], c[1], 4, bits, to_floatexp(1e-40), to_floatexp(1e-3));
  EXPECT_FALSE(n.found) << span_text(n.size, 4);
  // Period 2 from the same start: -1 itself, found, a minibrot (the period-2 bulb) of size 1/2.
  mpfr_set_d(c[0], -1.0000001, MPFR_RNDN);
  mpfr_set_d(c[1], 1e-8, MPFR_RNDN);
  const Nucleus two = newton_nucleus(c[0], c[1], 2, bits, to_floatexp(1e-40), to_floatexp(1e-3));
  EXPECT_TRUE(two.found);
  EXPECT_EQ(mpfr_cmp_si(c[0], -1), 0);
}

TEST(DeepReference, ServesViewsNearItAndNoFarOnesNorDeeperOnes) {
  const View v = view_of("1.3e-51", "1", "3e-50", 2000);
  const auto ref = make_reference(v, 320, 180);
  ASSERT_TRUE(ref);
  View moved = v;
  moved.center_x = moved.center_x + to_floatexp(1e-50);  // a third of a span
  EXPECT_TRUE(serves(*ref, moved, 320, 180));
  View far = v;
  far.center_x = far.center_x + to_floatexp(1e-48);  // 33 spans away
  EXPECT_FALSE(serves(*ref, far, 320, 180));
  View deeper = v;
  deeper.span = scaled(v.span, -80);  // 2^80 deeper: more bits than it was made with
  EXPECT_FALSE(serves(*ref, deeper, 320, 180));
  View wider = v;
  wider.span = scaled(v.span, 3);  // its tables reach a view twice as wide, not eight times
  EXPECT_FALSE(serves(*ref, wider, 320, 180));
}

}  // namespace
}  // namespace mp
