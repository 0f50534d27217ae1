// Where a frame's per-pixel data lives between the renderer and the colour shader: a GL
// object that CUDA writes through interop, or that the host uploads into.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gl/gl.h"
#include "render/present_mode.h"

namespace mp::gl {

class Surface {
 public:
  virtual ~Surface() = default;
  virtual std::string describe() const = 0;
  // true: begin_frame() returns device memory for CUDA; false: host memory.
  virtual bool device_memory() const = 0;
  // Memory for width*height*kFloatsPerPixel floats, valid until end_frame().
  virtual float* begin_frame() = 0;
  // Hands the frame to GL; afterwards data_texture() holds it.
  virtual void end_frame() = 0;
  virtual GLenum data_target() const = 0;  // GL_TEXTURE_BUFFER or GL_TEXTURE_2D
  virtual GLuint data_texture() const = 0;
  virtual PresentMode mode() const = 0;
  // What GL holds now (after end_frame), read back: for tests of the hand-over.
  virtual std::vector<float> read_back() const = 0;

  int width() const { return width_; }
  int height() const { return height_; }

 protected:
  Surface(int w, int h) : width_(w), height_(h) {}
  int width_, height_;
};

// Registers GL objects with CUDA. Throws (CudaError or std::runtime_error) if the mode cannot
// be used here (no interop, or the image is larger than a texture buffer may be).
std::unique_ptr<Surface> make_interop_surface(PresentMode mode, int width, int height);
// The host-copy surface: the host uploads each frame (texture buffer if it fits, else texture).
std::unique_ptr<Surface> make_host_surface(int width, int height);

// Per-warp SIMT efficiency of a frame (the divergence view), as a GL texture buffer of R32F
// that CUDA writes through interop, or the host fills.
class WarpBuffer {
 public:
  WarpBuffer(long long warps, bool interop);
  ~WarpBuffer();
  WarpBuffer(const WarpBuffer&) = delete;
  WarpBuffer& operator=(const WarpBuffer&) = delete;

  float* begin_frame();  // device memory if interop, else host memory
  void end_frame();
  GLuint texture() const;
  long long size() const { return warps_; }

 private:
  long long warps_;
  bool interop_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Texel limit of a texture buffer on this context.
long long max_texture_buffer_texels();

}  // namespace mp::gl
