// Plain-data description of one render launch; host code fills it without CUDA headers.
#pragma once

namespace mp {

// Pixel (px, py) samples c = (x0 + px*dx, y0 + py*dy); py = 0 is the top row.
struct PixelGrid {
  int width = 0;
  int height = 0;
  float x0 = 0, y0 = 0, dx = 0, dy = 0;
};

// Per-pixel output layout: two floats per pixel (smooth value, aux), row-major, top row first.
inline constexpr int kFloatsPerPixel = 2;

}  // namespace mp
