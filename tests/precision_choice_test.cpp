#include "model/precision_choice.h"
#include "model/variant_table.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace mp {
namespace {

constexpr int kW = 1920, kH = 1080;
constexpr ComputeCapability kSm75{7, 5}, kSm86{8, 6}, kSm90{9, 0};

View at(double x, double y, double span) {
  return view_at(x, y, span, 1024);
}

PrecisionChoice fma4_at(const View& v, std::optional<ComputeCapability> cc,
                        VariantId current = VariantId::Fma4) {
  return choose_precision(v, kW, kH, current, VariantId::Fma4, false, cc);
}

bool says(const PrecisionChoice& c, const std::string& words) {
  return c.why.find(words) != std::string::npos;
}

TEST(PrecisionChoice, FloatHoldsWhileItsPixelsAreApart) {
  for (const View& v : {at(-0.75, 0.1, 1e-3), at(-1.75, 0, 1e-3), at(0.3, -0.6, 1e-3),
                        at(0.001, 0, 1e-6)}) {  // near 0 a float is finer: 1e-6 still holds
    const PrecisionChoice c = fma4_at(v, kSm90);
    EXPECT_EQ(c.variant, VariantId::Fma4) << v.center_x.str(17) << " " << span_text(v.span);
    EXPECT_FALSE(c.deeper);
    EXPECT_FALSE(c.exhausted);
    EXPECT_TRUE(c.why.empty());
  }
}

TEST(PrecisionChoice, PastFloatTheFasterDeeperVariantOfTheChip) {
  for (const View& v : {at(-0.75, 0.1, 1e-6), at(-1.75, 0, 1e-6), at(0.3, -0.6, 3e-6)}) {
    const PrecisionChoice h100 = fma4_at(v, kSm90);
    EXPECT_EQ(h100.variant, VariantId::Fp64);  // FP64 at half the FP32 rate
    EXPECT_TRUE(h100.deeper);
    EXPECT_FALSE(h100.exhausted);
    EXPECT_TRUE(says(h100, "float cannot separate pixels at span")) << h100.why;
    EXPECT_TRUE(says(h100, "rendering with fp64 (faster than df64 on sm_90)")) << h100.why;
    EXPECT_EQ(h100.own, VariantId::Fma4);  // what pinning keeps, each front end says how
    for (ComputeCapability consumer : {kSm86, kSm75}) {  // FP64 at 1/64 and 1/32 of FP32
      const PrecisionChoice c = fma4_at(v, consumer);
      EXPECT_EQ(c.variant, VariantId::Df64Step);
      EXPECT_TRUE(says(c, "faster than fp64 on sm_" + std::to_string(consumer.major) +
                              std::to_string(consumer.minor)))
          << c.why;
    }
    const PrecisionChoice cpu = fma4_at(v, std::nullopt);
    EXPECT_EQ(cpu.variant, VariantId::Fp64);
    EXPECT_TRUE(says(cpu, "on the CPU double is native and cheaper than df64")) << cpu.why;
  }
}

// Past float the automatic choice keeps double and double-float only while a pixel spans 2048 of
// their ulps (their rounding near a thousandth of a pixel): at 3e-9 about -0.75 a pixel is
// 440 of df64's 48-bit ulps and 14,000 of double's.
TEST(PrecisionChoice, WhereDoubleFloatRunsOutTooDoubleIsTheOneLeft) {
  for (const View& v : {at(-0.75, 0.1, 3e-9), at(-1.75, 0, 3e-9)}) {
    const PrecisionChoice c = fma4_at(v, kSm86);
    EXPECT_EQ(c.variant, VariantId::Fp64);
    EXPECT_FALSE(c.exhausted);
    EXPECT_TRUE(says(c, "df64 runs out here too")) << c.why;
    // The user's own df64 moves to fp64 too.
    const PrecisionChoice own =
        choose_precision(v, kW, kH, VariantId::Df64Step, VariantId::Df64Step, false, kSm86);
    EXPECT_EQ(own.variant, VariantId::Fp64);
    EXPECT_TRUE(says(own, "double-float rounds by over a thousandth of a pixel")) << own.why;
  }
}

TEST(PrecisionChoice, PastEveryVariantPerturbationAndTheBannerSaysSo) {
  for (std::optional<ComputeCapability> cc :
       {std::optional(kSm90), std::optional<ComputeCapability>()}) {
    const PrecisionChoice c = fma4_at(at(-0.75, 0.1, 1e-15), cc);
    ASSERT_TRUE(c.perturbation.has_value());
    EXPECT_EQ(*c.perturbation, DeltaFormat::Double);
    EXPECT_TRUE(c.deeper);
    EXPECT_FALSE(c.exhausted);
    EXPECT_TRUE(
        says(c,
             "rendering with perturb, perturbation (double) from an MPFR reference orbit (a "
             "pixel needs"))
        << c.why;
    EXPECT_EQ(c.own, VariantId::Fma4) << c.why;
  }
  // fp64 as the user's own: perturbation is the one deeper.
  const PrecisionChoice own = choose_precision(at(0.3, -0.6, 1e-15), kW, kH, VariantId::Fp64,
                                               VariantId::Fp64, false, kSm90);
  EXPECT_TRUE(own.perturbation.has_value());
  EXPECT_TRUE(own.deeper);
  EXPECT_TRUE(says(own, "double cannot separate pixels")) << own.why;
  // Where double still separates pixels (7 ulps a pixel at 2.5e-13 on 320) but its rounding of
  // each step moves a long orbit's pixels: perturbation, and said; pinned, fp64 renders it.
  const View apart = *parse_view("-0.743643887037158704752191506114774",
                                 "0.131825904205311970493132056385139", "2.5e-13", 65536);
  const PrecisionChoice moved =
      choose_precision(apart, 320, 180, VariantId::Fp64, VariantId::Fp64, false, kSm90);
  EXPECT_EQ(moved.variant, VariantId::PerturbDouble);
  EXPECT_TRUE(says(moved, "double rounds by over a thousandth of a pixel at span 2.5e-13"))
      << moved.why;
  const PrecisionChoice from_float =
      choose_precision(apart, 320, 180, VariantId::Fma4, VariantId::Fma4, false, kSm90);
  EXPECT_TRUE(says(from_float, "(and double rounds by over a thousandth of a pixel)"))
      << from_float.why;
  const PrecisionChoice kept =
      choose_precision(apart, 320, 180, VariantId::Fp64, VariantId::Fp64, true, kSm90);
  EXPECT_EQ(kept.variant, VariantId::Fp64);
  EXPECT_FALSE(kept.exhausted);
}

// Where FP64 has a sixty-fourth of FP32's lanes, float differences at every depth; where it has a
// half (or on the CPU), double's 53 bits.
TEST(PrecisionChoice, FloatDifferencesWhereTheGpusFp64IsSlow) {
  EXPECT_TRUE(slow_fp64(kSm86));
  EXPECT_TRUE(slow_fp64(ComputeCapability{7, 5}));
  EXPECT_TRUE(slow_fp64(ComputeCapability{8, 9}));
  EXPECT_FALSE(slow_fp64(kSm90));
  EXPECT_FALSE(slow_fp64(ComputeCapability{8, 0}));
  EXPECT_FALSE(slow_fp64(std::nullopt));
  for (const char* span : {"1e-15", "1e-400", "1e-5000"}) {
    const PrecisionChoice c = fma4_at(*parse_view("-0.75", "0.1", span, 1000), kSm86);
    EXPECT_EQ(c.variant, VariantId::PerturbFloat) << span;
    EXPECT_EQ(*c.perturbation, DeltaFormat::Float) << span;
    EXPECT_TRUE(says(c, "perturbation (float, extended range)")) << c.why;
    EXPECT_TRUE(says(c, "FP64 under a quarter of FP32's rate")) << c.why;
  }
  // perturb-f as the user's own holds at any depth, on any GPU.
  const PrecisionChoice own =
      choose_precision(*parse_view("0", "1", "1e-5000", 1000), kW, kH, VariantId::PerturbFloat,
                       VariantId::PerturbFloat, false, kSm90);
  EXPECT_EQ(own.variant, VariantId::PerturbFloat);
  EXPECT_FALSE(own.deeper);
  EXPECT_FALSE(own.exhausted);
}

// The formats' boundary: a pixel spacing of 2^kDoubleDeltaExponent is the last in double.
TEST(PrecisionChoice, DifferencesInDoubleDownToTheirBoundaryThenTheExtendedRange) {
  View v = at(-0.75, 0.1, 1.0);
  v.span = FloatExp{1.0, kDoubleDeltaExponent + 11};  // 2048 pixels of 2^-990
  EXPECT_EQ(delta_format(v, 2048), DeltaFormat::Double);
  EXPECT_EQ(
      *choose_precision(v, 2048, 1024, VariantId::Fma4, VariantId::Fma4, false, kSm90).perturbation,
      DeltaFormat::Double);
  v.span = FloatExp{1.999, kDoubleDeltaExponent + 10};  // just under 2^-990 a pixel
  EXPECT_EQ(delta_format(v, 2048), DeltaFormat::Extended);
  const PrecisionChoice deep =
      choose_precision(v, 2048, 1024, VariantId::Fma4, VariantId::Fma4, false, kSm90);
  EXPECT_EQ(*deep.perturbation, DeltaFormat::Extended);
  EXPECT_TRUE(says(deep, "past double's exponent range")) << deep.why;
  EXPECT_EQ(delta_format(*parse_view("0", "1", "1e-5000", 100), 1920), DeltaFormat::Extended);
}

TEST(PrecisionChoice, PastDoubleTheChoiceIsAPerturbationVariantOfTheList) {
  View v = at(-0.75, 0.1, 1.0);
  v.span = FloatExp{1.0, -200};
  const PrecisionChoice dbl = fma4_at(v, kSm90);
  EXPECT_EQ(dbl.variant, VariantId::PerturbDouble);
  EXPECT_TRUE(says(dbl, "rendering with perturb,")) << dbl.why;
  v.span = FloatExp{1.0, -2000};
  const PrecisionChoice ext = fma4_at(v, kSm90);
  EXPECT_EQ(ext.variant, VariantId::PerturbExtended);
  EXPECT_EQ(*variant_info(ext.variant).perturbation, *ext.perturbation);
}

TEST(PrecisionChoice, APerturbationVariantRendersAnyDepthItsFormatHolds) {
  for (double span : {3.0, 1e-3, 1e-20}) {  // shallow views too, from a reference orbit
    const PrecisionChoice c = choose_precision(at(-0.75, 0.1, span), kW, kH, VariantId::Fma4,
                                               VariantId::PerturbDouble, false, kSm90);
    EXPECT_EQ(c.variant, VariantId::PerturbDouble) << span;
    EXPECT_EQ(*c.perturbation, DeltaFormat::Double) << span;
    EXPECT_FALSE(c.deeper || c.exhausted) << span;
  }
  // Past double's exponent range its differences would underflow: perturb-x, unless pinned.
  View deep = at(-0.75, 0.1, 1.0);
  deep.span = FloatExp{1.0, -1100};
  const PrecisionChoice moved = choose_precision(deep, kW, kH, VariantId::PerturbDouble,
                                                 VariantId::PerturbDouble, false, kSm90);
  EXPECT_EQ(moved.variant, VariantId::PerturbExtended);
  EXPECT_TRUE(moved.deeper);
  EXPECT_TRUE(says(moved, "leave double's exponent range")) << moved.why;
  const PrecisionChoice pinned = choose_precision(deep, kW, kH, VariantId::PerturbDouble,
                                                  VariantId::PerturbDouble, true, kSm90);
  EXPECT_EQ(pinned.variant, VariantId::PerturbDouble);
  EXPECT_TRUE(pinned.exhausted);
  const PrecisionChoice x = choose_precision(deep, kW, kH, VariantId::PerturbExtended,
                                             VariantId::PerturbExtended, true, kSm90);
  EXPECT_FALSE(x.exhausted || x.deeper);
}

TEST(PrecisionChoice, ZoomingOutOfPerturbationKeepsAMargin) {
  // Around -0.75 on 1920 pixels the automatic choice keeps fp64 down to a span of about 4.4e-10
  // (2048 ulps a pixel): at 6e-10 it does, but not at half of it.
  const View shallow = at(-0.75, 0.1, 1e-8), edge = at(-0.75, 0.1, 6e-10);
  EXPECT_FALSE(fma4_at(shallow, kSm90).perturbation.has_value());
  const PrecisionChoice stays =
      choose_precision(edge, kW, kH, VariantId::PerturbDouble, VariantId::Fma4, false, kSm90);
  const PrecisionChoice fresh = fma4_at(edge, kSm90);
  EXPECT_FALSE(fresh.perturbation.has_value()) << fresh.why;
  EXPECT_TRUE(stays.perturbation.has_value()) << stays.why;
  EXPECT_FALSE(
      choose_precision(shallow, kW, kH, VariantId::PerturbDouble, VariantId::Fma4, false, kSm90)
          .perturbation.has_value());
}

TEST(PrecisionChoice, APinnedVariantIsNeverChanged) {
  for (double span : {1e-3, 1e-6, 1e-11, 1e-15}) {
    const PrecisionChoice c = choose_precision(at(-0.75, 0.1, span), kW, kH, VariantId::Fp64,
                                               VariantId::Fma5, true, kSm90);
    EXPECT_EQ(c.variant, VariantId::Fma5) << span;
    EXPECT_FALSE(c.deeper);
    EXPECT_EQ(c.exhausted, span < 1e-4) << span;
    EXPECT_FALSE(c.perturbation.has_value());
  }
}

TEST(PrecisionChoice, ZoomingOutReturnsToTheUsersOwnWithAMargin) {
  EXPECT_EQ(fma4_at(at(-0.75, 0.1, 1e-3), kSm90, VariantId::Fp64).variant, VariantId::Fma4);
  // Float holds at 6e-4 (4 ulps is a span of about 4.6e-4 here) but not at half of it: the
  // deeper variant stays until the margin is there, and float stays while it holds.
  const View edge = at(-0.75, 0.1, 6e-4);
  const PrecisionChoice kept = fma4_at(edge, kSm90, VariantId::Fp64);
  EXPECT_EQ(kept.variant, VariantId::Fp64);
  EXPECT_TRUE(says(kept, "float is at its limit")) << kept.why;
  EXPECT_EQ(fma4_at(edge, kSm86, VariantId::Df64Step).variant, VariantId::Df64Step);
  EXPECT_EQ(fma4_at(edge, kSm90, VariantId::Fma4).variant, VariantId::Fma4);
  // Another float variant rendered (the user just chose fma4): no margin kept for it.
  EXPECT_EQ(fma4_at(edge, kSm90, VariantId::Fma5).variant, VariantId::Fma4);
}

// The window decides by the whole window's view but names the span of the view beside its panel,
// the one the user typed and sees: the same pixels, a narrower span.
TEST(PrecisionChoice, TheSentenceNamesTheSpanItIsGiven) {
  const View whole = at(-0.75, 0.1, 1.9e-6);
  const PrecisionChoice c = choose_precision(whole, 640, 360, VariantId::Fma4, VariantId::Fma4,
                                             false, kSm90, to_floatexp(1e-6));
  EXPECT_TRUE(says(c, "at span 1e-06")) << c.why;
  EXPECT_FALSE(says(c, "1.9e-06")) << c.why;
  EXPECT_TRUE(
      says(choose_precision(whole, 640, 360, VariantId::Fma4, VariantId::Fma4, false, kSm90),
           "at span 1.9e-06"));
}

}  // namespace

}  // namespace mp
