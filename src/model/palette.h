// Palettes (assets/palettes.json) and the colour mapping. The GLSL shader
// (shaders/colourize.frag) and colourize() below implement the same formula; a test holds
// them together. The formula itself is colour_rgb (cuda/host_device/colour.h), which render's
// colour kernel runs too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "colour.h"

namespace mp {

// Palette cycles per doubling of the iteration value: up to 1000, where a deep view's counts,
// a hundredth of their size apart, span a few cycles (fitted_colours).
inline constexpr float kMinDensity = 0.05f, kMaxDensity = 1000.0f;

struct PaletteStop {
  float pos;
  std::array<float, 3> rgb;  // 0..255
};

struct Palette {
  std::string name;
  std::vector<PaletteStop> stops;
};

// Throws std::runtime_error naming what is wrong with the JSON.
std::vector<Palette> parse_palettes(std::string_view json);
// kLutSize RGBA8 texels sampled from the stops (piecewise linear, wrapping).
std::vector<std::uint8_t> build_lut(const Palette& p);

// t = fract(log2(smooth + 1) * density + offset); colour = lut(t) * (1 + stripe * aux / 2);
// interior points (smooth < 0) are black.
std::array<std::uint8_t, 4> colourize(float smooth, float aux, const std::vector<std::uint8_t>& lut,
                                      const ColourParams& c);
// The density and offset that spread the palette over `cycles` cycles from the lowest escaped
// smooth value of `data` (n pixels, kFloatsPerPixel floats each) to the highest, the lowest at the
// palette's start; `c`'s stripe kept. A deep view's counts differ by a hundredth of their size,
// which density 1 shows as one colour. Nothing where fewer than two escaped values differ, or the
// density would leave [kMinDensity, kMaxDensity] (held at its end then).
struct FittedColours {
  ColourParams colour;
  float lowest = 0, highest = 0;  // the escaped smooth values it spans
};
std::optional<FittedColours> fitted_colours(const float* data, std::size_t n, ColourParams c,
                                            float cycles = 2.0f);
// Output pixels (0..cols-1, 0..rows-1) of samples `data` (rows of gw samples, kFloatsPerPixel
// floats each; ss x ss samples a pixel) coloured by colour_pixel into `rgb`, rows `pitch` bytes
// apart. Here, in mp_core, the host compiler contracts nothing (-ffp-contract=off), whatever the
// caller's flags: the bytes of render's colour kernel.
void colour_rows(const float* data, int gw, int cols, int rows, int ss,
                 const std::vector<std::uint8_t>& lut, const ColourParams& c, std::uint8_t* rgb,
                 std::size_t pitch);
// data: kFloatsPerPixel floats per pixel; rgba: 4 bytes per pixel, same row order.
void colourize_image(const float* data, int width, int height, const std::vector<std::uint8_t>& lut,
                     const ColourParams& c, std::uint8_t* rgba);

}  // namespace mp
