#include "model/palette.h"

#include <gtest/gtest.h>

#include <cmath>

#include "io/embedded.h"

namespace mp {
namespace {

TEST(Palette, ShippedPalettesParse) {
  const auto p = parse_palettes(embedded::palettes_json);
  ASSERT_GE(p.size(), 2u);
  EXPECT_EQ(p[0].name, "ember");
}

TEST(Palette, LutInterpolatesStops) {
  const Palette grey{"g", {{0.0f, {0, 0, 0}}, {1.0f, {255, 255, 255}}}};
  const auto lut = build_lut(grey);
  ASSERT_EQ(lut.size(), kLutSize * 4u);
  EXPECT_EQ(lut[0], 0);                     // texel 0 at t = 0.5/256
  EXPECT_EQ(lut[(kLutSize - 1) * 4], 255);  // last texel at t = 255.5/256
  EXPECT_EQ(lut[128 * 4], 128);             // t = 128.5/256: 255 t = 127.998
  EXPECT_EQ(lut[3], 255);
}

TEST(Palette, ColourMapping) {
  const Palette grey{"g", {{0.0f, {0, 0, 0}}, {1.0f, {255, 255, 255}}}};
  const auto lut = build_lut(grey);
  const ColourParams plain{1.0f, 0.0f, 0.0f};
  // Interior points are black.
  EXPECT_EQ(colourize(-1.0f, 0.5f, lut, plain), (std::array<std::uint8_t, 4>{0, 0, 0, 255}));
  // smooth = 2^t*... : log2(smooth + 1) = 2.5 -> t = 0.5 -> middle grey.
  const float s = std::pow(2.0f, 2.5f) - 1.0f;
  const auto mid = colourize(s, 0.0f, lut, plain);
  EXPECT_NEAR(mid[0], 128, 1);
  // The offset shifts the phase by a whole cycle: same colour.
  EXPECT_EQ(colourize(s, 0.0f, lut, {1.0f, 1.0f, 0.0f}), mid);
  // aux brightens or darkens with the stripe weight.
  const auto bright = colourize(s, 1.0f, lut, {1.0f, 0.0f, 1.0f});
  const auto dark = colourize(s, -1.0f, lut, {1.0f, 0.0f, 1.0f});
  EXPECT_NEAR(bright[0], 192, 1);
  EXPECT_NEAR(dark[0], 64, 1);
}

// colour_log2 (the same bits on the CPU and in render's colour kernel) against the library's
// log2 in double, rounded once to float: within an ulp everywhere, and equal almost everywhere.
TEST(Palette, TheSharedLog2IsWithinAnUlpOfTheLibrarys) {
  long equal = 0, total = 0;
  for (float x = 1.0f; x < 3e7f; x = std::nextafter(x * 1.0009765625f, 4e7f)) {
    const float want = static_cast<float>(std::log2(static_cast<double>(x)));
    const float got = colour_log2(x);
    EXPECT_LE(std::fabs(got - want), std::fabs(std::nextafter(want, 1e9f) - want)) << x;
    equal += got == want;
    ++total;
  }
  for (int e = 0; e < 25; ++e) {  // powers of two: exact
    EXPECT_EQ(colour_log2(std::ldexp(1.0f, e)), static_cast<float>(e));
    ++total;
    ++equal;
  }
  EXPECT_GT(equal, total * 999 / 1000) << equal << " of " << total;
}

// Values the kernels never give colour without an undefined conversion (UBSan watches the
// sanitizer run): NaN black, infinity as t = 0.
TEST(Palette, ValuesPastTheRangeColourWithoutUndefinedConversions) {
  const Palette grey{"g", {{0.0f, {0, 0, 0}}, {1.0f, {255, 255, 255}}}};
  const auto lut = build_lut(grey);
  const ColourParams plain{1.0f, 0.0f, 0.6f};
  EXPECT_EQ(colourize(std::nanf(""), 0.0f, lut, plain),
            (std::array<std::uint8_t, 4>{0, 0, 0, 255}));
  EXPECT_EQ(colourize(INFINITY, 0.0f, lut, plain), colourize(0.0f, 0.0f, lut, plain));
  const auto shaded = colourize(3.0f, std::nanf(""), lut, plain);
  EXPECT_EQ(shaded[0], 0) << "a NaN shade clamps to black";
}

// A deep view's counts (4,950 to 5,050: a hundredth of their size apart) fill two palette
// cycles from the lowest, at the palette's start; inside pixels and a flat image are left out.
TEST(Palette, FittedColoursSpreadTheImagesCountsOverTwoCycles) {
  const std::vector<float> data = {-1.0f, 0.0f, 4950.0f, 0.0f, 5000.0f, 0.0f, 5050.0f, 0.5f};
  ColourParams c;
  c.stripe = 0.3f;
  const std::optional<FittedColours> f = fitted_colours(data.data(), 4, c);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->lowest, 4950.0f);
  EXPECT_EQ(f->highest, 5050.0f);
  EXPECT_EQ(f->colour.stripe, 0.3f);
  const auto t = [&](float smooth) {
    const float v = colour_log2(smooth + 1.0f) * f->colour.density + f->colour.offset;
    return v - std::floor(v);
  };
  const float span = (colour_log2(5051.0f) - colour_log2(4951.0f)) * f->colour.density;
  EXPECT_NEAR(span, 2.0f, 1e-3f);
  const float start = t(4950.0f);
  EXPECT_TRUE(start < 1e-3f || start > 1 - 1e-3f) << start;
  EXPECT_GT(f->colour.density, 50.0f);  // where density 1 shows one colour
  // Nothing to fit: every pixel inside, or one value.
  EXPECT_FALSE(fitted_colours(data.data(), 1, c));
  const std::vector<float> flat = {7.0f, 0.0f, 7.0f, 0.0f};
  EXPECT_FALSE(fitted_colours(flat.data(), 2, c));
  // A shallow image's wide range is held at the lowest density.
  const std::vector<float> wide = {0.0f, 0.0f, 1e30f, 0.0f};
  EXPECT_EQ(fitted_colours(wide.data(), 2, c)->colour.density, kMinDensity);
}

TEST(Palette, BadFilesAreRejectedWithAReason) {
  EXPECT_THROW(parse_palettes("{"), std::runtime_error);
  EXPECT_THROW(parse_palettes(R"({"palettes": []})"), std::runtime_error);
  EXPECT_THROW(parse_palettes(R"({"palettes": [{"name": "x", "stops": [[0, [1,2,3]]]}]})"),
               std::runtime_error);
  EXPECT_THROW(
      parse_palettes(R"({"palettes": [{"name": "x", "stops": [[0.5, [1,2,3]], [0.2, [1,2,3]]]}]})"),
      std::runtime_error);
}

}  // namespace
}  // namespace mp
