// Draws a surface's per-pixel data through the palette shader, one data texel per pixel.
#pragma once

#include "gl/gl_objects.h"
#include "gl/surface.h"
#include "model/palette.h"

namespace mp::gl {

class Colourizer {
 public:
  Colourizer();
  void set_palette(const Palette& p);
  // Covers the current viewport, whose bottom-left pixel is the framebuffer's. With
  // `divergence`, tints each warp's pixels by how many of its lanes idled.
  void draw(const Surface& s, const ColourParams& c, const WarpBuffer* divergence = nullptr);

 private:
  Program buffer_program_;   // samplerBuffer (texture-buffer surfaces)
  Program texture_program_;  // sampler2D
  VertexArray vao_;
  Texture lut_;
};

}  // namespace mp::gl
