#include "gl/offscreen_target.h"

#include <algorithm>
#include <stdexcept>

namespace mp::gl {

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glBindRenderbuffer(GL_RENDERBUFFER, colour_.id());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.id());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_.id());
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (status != GL_FRAMEBUFFER_COMPLETE)
    throw std::runtime_error("off-screen framebuffer of " + std::to_string(width) + "x" +
                             std::to_string(height) + " is not usable on this GL");
}

void OffscreenTarget::bind() {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_.id());
  glViewport(0, 0, width_, height_);
}

std::vector<std::uint8_t> OffscreenTarget::read_rgba() {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_.id());
  auto px = read_pixels_top_first(width_, height_);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  return px;
}

std::vector<std::uint8_t> read_pixels_top_first(int width, int height) {
  const std::size_t row = static_cast<std::size_t>(width) * 4;
  std::vector<std::uint8_t> px(row * height);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  check_error("reading pixels");
  for (int y = 0; y < height / 2; ++y)
    std::swap_ranges(px.begin() + y * row, px.begin() + (y + 1) * row,
                     px.begin() + (height - 1 - y) * row);
  return px;
}

}  // namespace mp::gl
