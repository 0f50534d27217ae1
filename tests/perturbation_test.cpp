// Perturbation with rebasing and bilinear approximation (cuda/host_device/perturbation.h, the CPU
// reference in src/render) against each pixel iterated directly in MPFR, at depths from 1e-20 to
// past 1e-3000.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/precision_choice.h"
#include "mpfr_counts.h"
#include "mpfr_value.h"
#include "render/mpfr_temps.h"
#include "render/nucleus.h"
#include "render/perturbation_cpu.h"
#include "render/reference_orbit.h"
#include "session/deep_reference.h"

namespace mp {
namespace {

using test::Mp;

struct Location {
  std::string cx, cy;  // the image centre
  int span_exp10;      // span = span_mantissa x 10^span_exp10
  unsigned max_iter;
  DeltaFormat format;
  // Reference point offset from the centre, in spans (0: the centre itself).
  double ref_dx = 0, ref_dy = 0;
  double span_mantissa = 3;
  std::string span() const {
    return std::to_string(span_mantissa) + "e" + std::to_string(span_exp10);
  }
};

struct Frame {
  int width = 0, height = 0, bits = 0;
  std::vector<unsigned> counts;
  PerturbStats stats;
  ReferenceOrbit orbit;
};

// The view's image by perturbation in `format` from the reference `ref`.
Frame frame_from(const DeepReference& ref, const View& view, DeltaFormat format, int width,
                 int height, bool approximate) {
  Frame f;
  f.width = width;
  f.height = height;
  const DeepGrid grid = deep_grid(ref, view, width, height);
  BlaTables tables;
  if (approximate) tables = {&ref.dbl, &ref.extended, &ref.flt};
  std::vector<float> out(static_cast<std::size_t>(width) * height * 2);
  f.counts.resize(static_cast<std::size_t>(width) * height);
  f.stats = render_perturbation_cpu(format, grid, whole_image(grid), ref.orbit.view(), tables,
                                    view.max_iter, out.data(), f.counts.data());
  f.orbit = ref.orbit;
  return f;
}

// The location's image by perturbation, its reference at the given offset from the centre.
Frame perturbed(const Location& at, int width, int height, bool approximate) {
  // The bits to tell pixels apart, and a margin.
  const int bits = static_cast<int>((-at.span_exp10) * 3.33) + 64;
  const View view = *parse_view(at.cx, at.cy, at.span(), at.max_iter);
  const BigReal rx = view.center_x.with_bits(bits) + view.span * to_floatexp(at.ref_dx);
  const BigReal ry = view.center_y.with_bits(bits) + view.span * to_floatexp(at.ref_dy);
  const auto ref = reference_at(rx, ry, view, width, height, bits);
  Frame f = frame_from(*ref, view, at.format, width, height, approximate);
  f.bits = bits;
  return f;
}

// MPFR's count for pixel (px, py) of the location's image.
unsigned exact_count(const Location& at, const Frame& f, int px, int py) {
  return test::count_at({at.cx, at.cy, at.span(), at.max_iter}, f.width, f.height, f.bits, px, py);
}

struct Agreement {
  int sampled = 0, exact = 0, within_one = 0, largest_patch = 0;
};

// Every `stride`-th pixel against MPFR; wrong pixels that touch (8-neighbours on the sampled
// lattice) form a patch.
Agreement compare(const Location& at, const Frame& f, int stride) {
  Agreement a;
  const int w = (f.width + stride - 1) / stride, h = (f.height + stride - 1) / stride;
  std::vector<char> wrong(static_cast<std::size_t>(w) * h, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int px = x * stride, py = y * stride;
      const unsigned want = exact_count(at, f, px, py);
      const unsigned got = f.counts[static_cast<std::size_t>(py) * f.width + px];
      ++a.sampled;
      a.exact += got == want;
      a.within_one += (got > want ? got - want : want - got) <= 1;
      wrong[static_cast<std::size_t>(y) * w + x] = got != want;
    }
  std::vector<int> stack;
  for (int i = 0; i < w * h; ++i) {
    if (wrong[i] != 1) continue;
    int size = 0;
    stack.push_back(i);
    wrong[i] = 2;
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      ++size;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = k % w + dx, y = k / w + dy;
          if (x < 0 || y < 0 || x >= w || y >= h || wrong[y * w + x] != 1) continue;
          wrong[y * w + x] = 2;
          stack.push_back(y * w + x);
        }
    }
    a.largest_patch = std::max(a.largest_patch, size);
  }
  return a;
}

void expect_accurate(const Agreement& a) {
  EXPECT_GE(a.exact, 0.995 * a.sampled) << a.exact << " of " << a.sampled << " exact";
  EXPECT_GE(a.within_one, 0.999 * a.sampled) << a.within_one << " of " << a.sampled;
  EXPECT_LE(a.largest_patch, 4);
}

// c = i is a Misiurewicz point (its orbit 0, i, -1+i, -i, -1+i, ... repeats without
// escaping): at every depth the view around it holds spirals whose counts grow with the depth.
Location near_i(int span_exp10, unsigned iters, DeltaFormat f) {
  return {"1.3e" + std::to_string(span_exp10 - 1), "1", span_exp10, iters, f};
}

// Beside the tip c = -2, where the set is a thread along the real axis.
TEST(Perturbation, MatchesMpfrAt1em20) {
  const Location at{"-1.99999999999999999999", "1.1e-20", -20, 4000, DeltaFormat::Double};
  const Frame f = perturbed(at, 48, 32, true);
  expect_accurate(compare(at, f, 1));
  EXPECT_LT(f.stats.iterated, f.stats.pixel_iters);  // the approximation skipped steps
}

TEST(Perturbation, MatchesMpfrAt1em50NearAMisiurewiczPoint) {
  const Location at = near_i(-50, 3000, DeltaFormat::Double);
  const Frame f = perturbed(at, 40, 30, true);
  expect_accurate(compare(at, f, 1));
  EXPECT_LT(f.stats.iterated * 2, f.stats.pixel_iters);
}

TEST(Perturbation, MatchesMpfrAt1em300InTheExtendedRange) {
  const Location at = near_i(-300, 6000, DeltaFormat::Extended);
  const Frame f = perturbed(at, 32, 24, true);
  expect_accurate(compare(at, f, 2));
}

TEST(Perturbation, MatchesMpfrAt1em1000) {
  const Location at = near_i(-1000, 12000, DeltaFormat::Extended);
  const Frame f = perturbed(at, 24, 16, true);
  expect_accurate(compare(at, f, 2));
  EXPECT_LT(f.stats.iterated * 20, f.stats.pixel_iters);
}

TEST(Perturbation, MatchesMpfrPast1em3000) {
  const Location at = near_i(-3100, 30000, DeltaFormat::Extended);
  const Frame f = perturbed(at, 16, 12, true);
  expect_accurate(compare(at, f, 3));
}

// The view's pixels from the reference the program makes for it (at its centre, or a minibrot's
// nucleus in view), as render and the window iterate them.
Frame as_rendered(const test::DecimalView& v, DeltaFormat format, int width, int height,
                  bool approximate) {
  const View view = *parse_view(v.cx, v.cy, v.span, v.max_iter);
  return frame_from(*make_reference(view, width, height), view, format, width, height, approximate);
}

// There, every sampled pixel whose centre decides its count (mpfr_counts.h) has exactly MPFR's
// count, with the tables and every step: to 1e-10 of a pixel in double and in the extended
// format (the others, a few percent, are a hair's breadth from other counts), to 3e-4 in float,
// whose 24 bits leave about a quarter of the pixels there undecided.
TEST(Perturbation, AtAnExplorersViewEveryPixelItsCentreDecidesIsExact) {
  const int w = 96, h = 54;
  const View view = *parse_view(test::kExploredView.cx, test::kExploredView.cy,
                                test::kExploredView.span, test::kExploredView.max_iter);
  const int bits = view_bits(view, w) + 64;
  const auto samples = test::decided_samples(test::kExploredView, w, h, bits, 4, 1e-10);
  const auto float_samples = test::decided_samples(test::kExploredView, w, h, bits, 4, 3e-4);
  for (const DeltaFormat format : {DeltaFormat::Double, DeltaFormat::Extended, DeltaFormat::Float})
    for (const bool tables : {true, false}) {
      const Frame f = as_rendered(test::kExploredView, format, w, h, tables);
      const bool in_float = format == DeltaFormat::Float;
      const test::DecidedAgreement a =
          test::agreement(in_float ? float_samples : samples, f.counts, w);
      std::printf("  %s%s: %d of %d sampled exact; decided %d, of them %d exact, %d within one\n",
                  perturbation_name(format), tables ? "" : ", every step", a.exact, a.sampled,
                  a.decided, a.decided_exact, a.decided_within_one);
      EXPECT_GT(f.stats.rebases, 0u);
      EXPECT_GE(a.decided, (in_float ? 0.6 : 0.9) * a.sampled);
      EXPECT_EQ(a.decided_exact, a.decided);
    }
}

// Past double's range near minibrots (mpfr_counts.h), where the reference comes back nearer 0
// than double's squares reach: pixels rebase there, from its value in the extended range. Without
// it the rebases there are missed (a flat patch at one count), or, where the double holds it as
// 0, 2 Z d is lost (nearly every pixel wrong).
TEST(Perturbation, NearMinibrotsPastDoublesRangeEveryDecidedPixelIsExact) {
  const int w = 24, h = 16;
  for (const test::DecimalView* v : {&test::kBelowSquaresView, &test::kBelowDoubleView}) {
    const View view = *parse_view(v->cx, v->cy, v->span, v->max_iter);
    const int bits = view_bits(view, w) + 64;
    const auto samples = test::decided_samples(*v, w, h, bits, 4, 1e-10);
    const auto float_samples = test::decided_samples(*v, w, h, bits, 4, 1e-4);
    for (const DeltaFormat format : {DeltaFormat::Extended, DeltaFormat::Float})
      for (const bool tables : {true, false}) {
        const Frame f = as_rendered(*v, format, w, h, tables);
        const bool in_float = format == DeltaFormat::Float;
        const test::DecidedAgreement a =
            test::agreement(in_float ? float_samples : samples, f.counts, w);
        std::printf("  %s %s%s: %d of %d sampled exact; decided %d, of them %d exact\n",
                    v->span.c_str(), perturbation_name(format), tables ? "" : ", every step",
                    a.exact, a.sampled, a.decided, a.decided_exact);
        EXPECT_GT(f.orbit.view().tiny_at, 0u) << v->span;
        EXPECT_GE(a.decided, 0.6 * a.sampled) << v->span;
        EXPECT_EQ(a.decided_exact, a.decided) << v->span;
      }
  }
}

// The approximation only skips: with and without it every count is the same or one apart.
TEST(Perturbation, ApproximationKeepsTheCountsOfSingleSteps) {
  const Location at = near_i(-60, 3000, DeltaFormat::Extended);
  const Frame with = perturbed(at, 40, 30, true), without = perturbed(at, 40, 30, false);
  EXPECT_EQ(without.stats.iterated, without.stats.pixel_iters);
  int same = 0;
  for (std::size_t i = 0; i < with.counts.size(); ++i) same += with.counts[i] == without.counts[i];
  EXPECT_GE(same, 0.995 * with.counts.size());
  EXPECT_LT(with.stats.iterated * 2, with.stats.pixel_iters);
}

// A look-up finds runs of 8 steps or more, and only where one can start (m - 1 a multiple of 8):
// where shorter runs were looked up at every step, the tables cost more than iterating every step
// wherever few runs held.
TEST(Perturbation, TheTablesAreLookedUpForRunsOfEightStepsOrMore) {
  const View view = *parse_view("1.3e-31", "1", "3e-30", 3000);
  const auto ref = make_reference(view, 64, 48);
  const BlaView<BlaD> bla = ref->dbl.view();
  ASSERT_GT(bla.levels, kBlaShortest);
  int found = 0;
  for (unsigned m = 1; m < 200; ++m) {
    const BlaD* b = nullptr;
    const int level = bla_level<DeltaDouble>(bla, DeltaDouble::Value{1e-40, 0}, m, 0, 3000, &b);
    EXPECT_EQ(bla_point(m), (m - 1) % 8 == 0) << m;
    if (!bla_point(m)) EXPECT_EQ(level, -1) << m;
    if (level >= 0) {
      EXPECT_GE(level, kBlaShortest) << m;
      ++found;
    }
  }
  EXPECT_GT(found, 0);
}

// The look-up's bounds, on tables whose every run holds: the longest run that the reference index
// (m - 1's factors of two), the levels and the steps left allow, none under 8 steps, and none
// from tables of 3 levels or fewer (read as no tables at all).
TEST(Perturbation, ALookUpFindsTheLongestRunTheIndexLevelsAndStepsLeftAllow) {
  std::vector<BlaD> entries(8 * 1000);
  for (BlaD& b : entries) b.r = 1e300;
  BlaView<BlaD> bla;
  bla.entries = entries.data();
  bla.levels = 8;
  for (int l = 0; l <= 8; ++l) bla.offset[l] = 1000u * l;
  const auto level = [&](unsigned m, unsigned n, unsigned max_iter) {
    const BlaD* b = nullptr;
    return bla_level<DeltaDouble>(bla, DeltaDouble::Value{}, m, n, max_iter, &b);
  };
  EXPECT_EQ(level(1, 0, 100000), 7);  // m - 1 = 0: every level starts there
  EXPECT_EQ(level(9, 0, 100000), 3);  // m - 1 = 8
  EXPECT_EQ(level(17, 0, 100000), 4);
  EXPECT_EQ(level(2, 0, 100000), -1);  // runs of 8 cannot start at m - 1 = 1
  EXPECT_EQ(level(1, 100, 108), 3);   // 8 steps left
  EXPECT_EQ(level(1, 100, 107), -1);  // 7
  EXPECT_EQ(level(1, 0, 300), 7);     // 2^8 steps fit, but 8 levels end at 2^7
  EXPECT_EQ(level(1, 0, 40), 5);
  EXPECT_FALSE(bla_usable(3));
  EXPECT_TRUE(bla_usable(4));
  bla.levels = 3;
  EXPECT_EQ(level(1, 0, 100000), -1);
}

// A minibrot near i (period 160, about 1e-120 across) found by the ball method and Newton's
// method, in a view eight times its size whose centre, and so the reference, is off its nucleus:
// pixels near the nucleus come back near 0 where the reference does not. Without rebasing their
// differences there lose every bit that tells them apart (a glitch); without the radius bounding
// the approximation, runs are skipped across those returns.
Location minibrot_near_i() {
  const int bits = 500;
  Mp x("1.3e-61", bits), y("1", bits);
  const ReferenceOrbit orbit = *compute_reference_orbit(x.get(), y.get(), bits, 10000);
  const std::optional<unsigned> period = ball_period_of(orbit.view(), to_floatexp(3e-60), 10000);
  EXPECT_EQ(period.value_or(0), 160u);
  const Nucleus n = newton_nucleus(x.get(), y.get(), period.value_or(1), bits, to_floatexp(1e-135),
                                   to_floatexp(3e-59));
  EXPECT_TRUE(n.found);
  // Centre 2.4 and 1.1 sizes from the nucleus, span 8 sizes, as decimals.
  Mp size(bits), t(bits);
  mpfr_set_d(size.get(), n.size.m, MPFR_RNDN);
  mpfr_mul_2si(size.get(), size.get(), n.size.e, MPFR_RNDN);
  Location at;
  mpfr_mul_d(t.get(), size.get(), 2.4, MPFR_RNDN);
  mpfr_add(x.get(), x.get(), t.get(), MPFR_RNDN);
  mpfr_mul_d(t.get(), size.get(), 1.1, MPFR_RNDN);
  mpfr_add(y.get(), y.get(), t.get(), MPFR_RNDN);
  char* text = nullptr;
  mpfr_asprintf(&text, "%.150Re", x.get());
  at.cx = text;
  mpfr_free_str(text);
  mpfr_asprintf(&text, "%.150Re", y.get());
  at.cy = text;
  mpfr_free_str(text);
  mpfr_mul_ui(t.get(), size.get(), 8, MPFR_RNDN);
  long e10 =
      static_cast<long>(std::floor(std::log10(mpfr_get_d(t.get(), MPFR_RNDN) * 1e120))) - 120;
  mpfr_div_d(t.get(), t.get(), std::pow(10.0, static_cast<double>(e10 + 120)), MPFR_RNDN);
  at.span_mantissa = mpfr_get_d(t.get(), MPFR_RNDN) * 1e120;
  at.span_exp10 = static_cast<int>(e10);
  at.max_iter = 4000;
  at.format = DeltaFormat::Double;
  return at;
}

TEST(Perturbation, AMinibrotOffTheReferenceIsExactByRebasing) {
  const Location at = minibrot_near_i();
  const Frame f = perturbed(at, 40, 30, true);
  EXPECT_GT(f.stats.rebases, 0u);
  expect_accurate(compare(at, f, 1));
}

// perturb's every step on the CPU counts the rounds its warps would run in lockstep on the GPU
// (render/lockstep_rounds.h): a 40x30 frame is 3 x 15 tiles of 16x2, the last column of tiles half
// without pixels; each warp runs a round at least, at most one a step of its slowest lane.
TEST(Perturbation, EveryStepInDoubleCountsTheWarpsRounds) {
  const Location at = minibrot_near_i();
  const int w = 40, h = 30;
  const Frame f = perturbed(at, w, h, false);
  ASSERT_TRUE(f.stats.rounds_counted);
  unsigned long long warp_steps = 0;
  for (int ty = 0; ty < h / 2; ++ty)
    for (int tx = 0; tx < w; tx += 16) {
      unsigned slowest = 0;
      for (int y = 2 * ty; y < 2 * ty + 2; ++y)
        for (int x = tx; x < std::min(tx + 16, w); ++x)
          slowest = std::max(slowest, f.counts[static_cast<std::size_t>(y) * w + x]);
      warp_steps += slowest;
    }
  EXPECT_GE(f.stats.rounds, 3u * 15u);
  EXPECT_LE(f.stats.rounds, warp_steps);
  EXPECT_GT(f.stats.rebase_rounds, 0u);
  EXPECT_LE(f.stats.rebase_rounds, f.stats.rebases);
  EXPECT_GE(f.stats.rebase_rounds * 32, f.stats.rebases);
  EXPECT_LE(f.stats.done_rounds, f.stats.rounds);
  // With the tables, or in another format, no lockstep kernel runs and no rounds are counted.
  EXPECT_FALSE(perturbed(at, w, h, true).stats.rounds_counted);
  EXPECT_FALSE(
      perturbed(near_i(-300, 2000, DeltaFormat::Extended), 16, 4, false).stats.rounds_counted);
}

// At a nucleus the reference comes back to Z = 0, where a difference below double's range is
// the pixel's z itself: its square must not be lost with the 2Z it is added to.
TEST(Perturbation, TheExtendedStepKeepsTheSquareWhereTheReferenceIsZero) {
  const ComplexExp dc = to_complexexp(FloatExp{1.0, -3320}, FloatExp{});
  const DeltaExp::Value d = DeltaExp::rescaled(1.0, 0.0, -1500, dc);
  auto value = [](const DeltaExp::Value& v) { return normalised(v.x, v.y, v.e); };
  const ComplexExp next = value(DeltaExp::step(d, RefPoint{0.0, 0.0}, dc));
  EXPECT_EQ(next.e, -3000);  // d^2 = 2^-3000, against which dc is nothing
  EXPECT_EQ(next.x, 1.0);
  // Beside a reference of double's range the same difference doubles it as before.
  const ComplexExp beside = value(DeltaExp::step(d, RefPoint{0.5, 0.0}, dc));
  EXPECT_EQ(beside.e, -1500);
  EXPECT_EQ(beside.x, 1.0);
}

// The extended step keeps its mantissas between 2^-64 and 2^64 and rescales past them, with the
// scale and the pixel's dc made again for the new exponent; the value is the exact one's.
TEST(Perturbation, TheExtendedStepRescalesOnlyPastItsWindow) {
  const ComplexExp dc = to_complexexp(FloatExp{1.5, -2000}, FloatExp{1.25, -2001});
  DeltaExp::Value d = DeltaExp::rescaled(1.0, 0.5, -1990, dc);
  ComplexExp exact = normalised(1.0, 0.5, -1990);
  const RefPoint z{1.75, -0.25};
  int rescales = 0;
  for (int k = 0; k < 200; ++k) {
    const int e = d.e;
    d = DeltaExp::step(d, z, dc);
    exact = (normalised(2 * z.x, 2 * z.y, 0) + exact) * exact + dc;
    rescales += d.e != e;
    const ComplexExp got = normalised(d.x, d.y, d.e);
    ASSERT_EQ(got.e, exact.e) << k;
    ASSERT_NEAR(got.x, exact.x, 1e-9) << k;
    ASSERT_NEAR(got.y, exact.y, 1e-9) << k;
    ASSERT_EQ(d.s, 0.0);  // 2^e below double's range
  }
  EXPECT_GT(rescales, 0);
  EXPECT_LT(rescales, 40);  // not every step: |d| grows about 3.5 times a step
}

// The float step keeps its mantissas between 2^-48 and 2^48 as the extended one does between
// 2^-64 and 2^64, remaking its caches in float; against the exact arithmetic to float's bits.
TEST(Perturbation, TheFloatStepRescalesOnlyPastItsWindow) {
  const ComplexExp dc = to_complexexp(FloatExp{1.5, -2000}, FloatExp{1.25, -2001});
  const DeltaFloat::Dc fdc = DeltaFloat::of(dc);
  DeltaFloat::Value d = DeltaFloat::rescaled(1.0f, 0.5f, -1990, fdc);
  ComplexExp exact = normalised(1.0, 0.5, -1990);
  const RefPoint z{1.75, -0.25};
  const RefPointF zf{1.75f, -0.25f};
  int rescales = 0;
  for (int k = 0; k < 60; ++k) {
    const int e = d.e;
    d = DeltaFloat::step(d, zf, fdc, &z);
    exact = (normalised(2 * z.x, 2 * z.y, 0) + exact) * exact + dc;
    rescales += d.e != e;
    const ComplexExp got = DeltaFloat::wide(d);
    ASSERT_EQ(got.e, exact.e) << k;
    ASSERT_NEAR(got.x, exact.x, 1e-4) << k;
    ASSERT_NEAR(got.y, exact.y, 1e-4) << k;
    ASSERT_EQ(d.s, 0.0f);  // 2^e below float's range
  }
  EXPECT_GT(rescales, 0);
  EXPECT_LT(rescales, 20);  // |d| grows about 3.5 times a step, the window is 96 bits
}

// Where Z is 0 (a nucleus's return, Z_0 after a rebase) the float step is the exponent's: d^2
// is kept however far below float's range, and float's zero Z is not taken for the wide one.
TEST(Perturbation, TheFloatStepKeepsTheSquareWhereTheReferenceIsZero) {
  const DeltaFloat::Dc dc = DeltaFloat::of(to_complexexp(FloatExp{1.0, -3320}, FloatExp{}));
  const DeltaFloat::Value d = DeltaFloat::rescaled(1.0f, 0.0f, -1500, dc);
  const RefPoint zero{0.0, 0.0};
  const ComplexExp next = DeltaFloat::wide(DeltaFloat::step(d, RefPointF{}, dc, &zero));
  EXPECT_EQ(next.e, -3000);
  EXPECT_EQ(next.x, 1.0);
  // Z = 2^-60, below the float path's threshold: d' = 2 Z d + d^2 from Z in double.
  const RefPoint tiny{0x1p-60, 0.0};
  const DeltaFloat::Value small = DeltaFloat::rescaled(1.0f, 0.0f, -70, dc);
  const ComplexExp beside =
      DeltaFloat::wide(DeltaFloat::step(small, RefPointF{0x1p-60f, 0.0f}, dc, &tiny));
  EXPECT_EQ(beside.e, -129);  // 2 Z d = 2^-129, and d^2 = 2^-140 beside it
  EXPECT_DOUBLE_EQ(beside.x, 1.0 + 0x1p-11);
}

// A table's step in float, A d + B dc at exponents of their own: against the exact arithmetic
// where A d is the larger term, where B dc is, and where one is below float's range at the
// other's exponent.
TEST(Perturbation, TheFloatTablesStepIsTheExactOnesToFloatsBits) {
  const ComplexExp dc_exact = to_complexexp(FloatExp{1.25, -3000}, FloatExp{-1.5, -3001});
  const DeltaFloat::Dc dc = DeltaFloat::of(dc_exact);
  // (A, d): A d above B dc, beside it, 2^-142 of it (below float's range at B dc's exponent),
  // and far above it.
  for (const auto [a_exp, d_exp] :
       {std::pair{3, -2990}, std::pair{3, -3004}, std::pair{-150, -2990}, std::pair{3, -2800}}) {
    BlaF b;
    b.ax = 1.5f;
    b.ay = -0.75f;
    b.ae = a_exp;
    b.bx = 1.0f;
    b.by = 0.5f;
    b.be = 2;
    const DeltaFloat::Value d = DeltaFloat::rescaled(1.0f, 0.25f, d_exp, dc);
    const ComplexExp exact = normalised(1.5, -0.75, a_exp) * normalised(1.0, 0.25, d_exp) +
                             normalised(1.0, 0.5, 2) * dc_exact;
    const ComplexExp got = DeltaFloat::wide(DeltaFloat::approximate(b, d, dc));
    EXPECT_EQ(got.e, exact.e) << d_exp;
    EXPECT_NEAR(got.x, exact.x, 1e-6) << d_exp;
    EXPECT_NEAR(got.y, exact.y, 1e-6) << d_exp;
  }
}

// A reference at the image's corner, outside the set: the pixels whose orbits outlast it run on
// past its end by rebasing to its start (in double and in float).
TEST(Perturbation, AReferenceThatEscapesEarlyServesLongerOrbitsByRebasing) {
  for (const DeltaFormat format : {DeltaFormat::Double, DeltaFormat::Float}) {
    Location at = near_i(-30, 3000, format);
    at.ref_dx = 0.45;
    at.ref_dy = -0.3;
    const Frame f = perturbed(at, 24, 16, true);
    EXPECT_TRUE(f.orbit.escaped);
    EXPECT_GT(f.stats.rebases, 0u);
    expect_accurate(compare(at, f, 1));
  }
}

// A pixel whose z is far past the bailout at its first test escapes with a value of at least 0,
// not one under 0 that colours it as inside (as the plain kernels' pixel_result).
TEST(Perturbation, PointsFarOutsideEscapeWithAValueOfAtLeastZero) {
  for (const double x : {17.0, 500.0, 1.0e6}) {
    PerturbResult r;
    r.escaped = true;
    r.n = 1;
    r.zx = x;
    EXPECT_GE(perturb_smooth(r), 0.0f) << x;
  }
  PerturbResult near;
  near.escaped = true;
  near.n = 10;
  near.zx = 3;
  EXPECT_GT(perturb_smooth(near), 10.0f);
  EXPECT_LT(perturb_smooth(PerturbResult{}), 0.0f);  // inside
}

// The float differences (perturb-f) at the same depths and places: 24 bits of d and of Z.
class FloatDifferences : public ::testing::TestWithParam<int> {};

TEST_P(FloatDifferences, MatchMpfr) {
  const int depth = GetParam();
  Location at = depth == -20
                    ? Location{"-1.99999999999999999999", "1.1e-20", -20, 4000, DeltaFormat::Float}
                    : near_i(depth, depth > -300 ? 3000 : 6000, DeltaFormat::Float);
  if (depth <= -1000) at.max_iter = depth < -3000 ? 30000 : 12000;
  const int size = depth < -3000 ? 16 : depth <= -300 ? 32 : 40;
  // With the tables, and where MPFR's side is cheap enough also every step iterated in float.
  for (const bool tables : {true, false}) {
    if (!tables && depth <= -1000) break;
    const Frame f = perturbed(at, size, size * 3 / 4, tables);
    const Agreement a = compare(at, f, depth < -3000 ? 3 : depth <= -300 ? 2 : 1);
    std::printf("  float at 1e%d%s: %d of %d exact, %d within one, largest patch %d\n", depth,
                tables ? "" : ", every step", a.exact, a.sampled, a.within_one, a.largest_patch);
    expect_accurate(a);
  }
}

INSTANTIATE_TEST_SUITE_P(Depths, FloatDifferences, ::testing::Values(-20, -50, -300, -1000, -3100));

TEST(FloatDifferences, AMinibrotOffTheReferenceIsExactByRebasing) {
  Location at = minibrot_near_i();
  at.format = DeltaFormat::Float;
  const Frame f = perturbed(at, 40, 30, true);
  EXPECT_GT(f.stats.rebases, 0u);
  const Agreement a = compare(at, f, 1);
  std::printf("  float at the minibrot: %d of %d exact, %d within one, largest patch %d\n", a.exact,
              a.sampled, a.within_one, a.largest_patch);
  expect_accurate(a);
}

}  // namespace
}  // namespace mp
