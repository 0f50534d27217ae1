#include "palette.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kernel_params.h"

namespace mp {

std::vector<Palette> parse_palettes(std::string_view text) {
  std::vector<Palette> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const auto& p : j.at("palettes")) {
      Palette pal;
      pal.name = p.at("name").get<std::string>();
      for (const auto& s : p.at("stops")) {
        PaletteStop st{s.at(0).get<float>(), s.at(1).get<std::array<float, 3>>()};
        if (!(st.pos >= 0 && st.pos <= 1)) throw std::runtime_error("stop position outside [0, 1]");
        if (!pal.stops.empty() && st.pos < pal.stops.back().pos)
          throw std::runtime_error("stop positions must not decrease");
        pal.stops.push_back(st);
      }
      if (pal.stops.size() < 2) throw std::runtime_error("a palette needs at least two stops");
      out.push_back(std::move(pal));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("palette file: ") + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("palette file: ") + e.what());
  }
  if (out.empty()) throw std::runtime_error("palette file: no palettes");
  return out;
}

std::vector<std::uint8_t> build_lut(const Palette& p) {
  std::vector<std::uint8_t> lut(kLutSize * 4);
  for (int i = 0; i < kLutSize; ++i) {
    const float t = (i + 0.5f) / kLutSize;
    auto hi = std::find_if(p.stops.begin(), p.stops.end(),
                           [t](const PaletteStop& s) { return s.pos >= t; });
    if (hi == p.stops.begin()) hi = std::next(hi);
    if (hi == p.stops.end()) hi = std::prev(hi);
    const PaletteStop& a = *std::prev(hi);
    const PaletteStop& b = *hi;
    const float f = b.pos > a.pos ? std::clamp((t - a.pos) / (b.pos - a.pos), 0.0f, 1.0f) : 0.0f;
    for (int c = 0; c < 3; ++c)
      lut[i * 4 + c] = static_cast<std::uint8_t>(std::lround(a.rgb[c] + f * (b.rgb[c] - a.rgb[c])));
    lut[i * 4 + 3] = 255;
  }
  return lut;
}

std::array<std::uint8_t, 4> colourize(float smooth, float aux, const std::vector<std::uint8_t>& lut,
                                      const ColourParams& c) {
  std::array<std::uint8_t, 4> rgba{0, 0, 0, 255};
  colour_rgb(smooth, aux, lut.data(), c, rgba.data());
  return rgba;
}

std::optional<FittedColours> fitted_colours(const float* data, std::size_t n, ColourParams c,
                                            float cycles) {
  float lo = 0, hi = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = data[i * kFloatsPerPixel];
    if (!(v >= 0.0f)) continue;  // inside, or not a value
    if (hi < lo) lo = hi = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(hi > lo)) return std::nullopt;
  // The formula's own log2, so that the lowest value lands on the palette's start.
  const float from = colour_log2(lo + 1.0f), to = colour_log2(hi + 1.0f);
  if (!(to > from)) return std::nullopt;
  c.density = std::clamp(cycles / (to - from), kMinDensity, kMaxDensity);
  const float start = from * c.density;
  c.offset = -(start - std::floor(start));
  if (c.offset < 0) c.offset += 1.0f;
  return FittedColours{c, lo, hi};
}

void colour_rows(const float* data, int gw, int cols, int rows, int ss,
                 const std::vector<std::uint8_t>& lut, const ColourParams& c, std::uint8_t* rgb,
                 std::size_t pitch) {
  for (int r = 0; r < rows; ++r)
    for (int x = 0; x < cols; ++x)
      colour_pixel(data, gw, x, r, ss, lut.data(), c,
                   rgb + static_cast<std::size_t>(r) * pitch + static_cast<std::size_t>(x) * 3);
}

void colourize_image(const float* data, int width, int height, const std::vector<std::uint8_t>& lut,
                     const ColourParams& c, std::uint8_t* rgba) {
  const std::size_t n = static_cast<std::size_t>(width) * height;
  for (std::size_t i = 0; i < n; ++i) {
    colour_rgb(data[i * kFloatsPerPixel], data[i * kFloatsPerPixel + 1], lut.data(), c,
               rgba + i * 4);
    rgba[i * 4 + 3] = 255;
  }
}

}  // namespace mp
