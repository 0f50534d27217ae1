// A framebuffer object to draw into without a window, and to read back as RGBA8.
#pragma once

#include <cstdint>
#include <vector>

#include "gl/gl_objects.h"

namespace mp::gl {

class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);
  void bind();  // as draw framebuffer, viewport set to the whole target
  // width*height*4 bytes, top row first.
  std::vector<std::uint8_t> read_rgba();

 private:
  int width_, height_;
  Framebuffer fbo_;
  Renderbuffer colour_;
};

// Reads the currently bound read framebuffer, rows flipped to top-first.
std::vector<std::uint8_t> read_pixels_top_first(int width, int height);

}  // namespace mp::gl
