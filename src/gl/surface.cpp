#include "gl/surface.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

// cuda_gl_interop.h pulls in GL/gl.h: it must come after GLAD (gl/gl.h above).
#include <cuda_gl_interop.h>

#include "cuda_check.h"
#include "device_buffer.h"
#include "gl/cuda_mapping.h"
#include "gl/gl_objects.h"
#include "kernel_params.h"

namespace mp::gl {
namespace {

// The most bytes one GL upload call is given.
constexpr std::size_t kUploadPiece = std::size_t{256} << 20;

std::size_t frame_bytes(int w, int h) {
  return static_cast<std::size_t>(w) * h * kFloatsPerPixel * sizeof(float);
}

std::vector<float> read_texture(GLuint texture, int w, int h) {
  std::vector<float> v(static_cast<std::size_t>(w) * h * kFloatsPerPixel);
  glBindTexture(GL_TEXTURE_2D, texture);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RG, GL_FLOAT, v.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  return v;
}

CudaRegistration register_buffer(GLuint buffer) {
  cudaGraphicsResource_t r = nullptr;
  CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&r, buffer, cudaGraphicsRegisterFlagsWriteDiscard));
  return CudaRegistration(r);
}

// The frame's mapping from begin_frame to end_frame; a frame left unfinished by an exception
// is unmapped when the next one begins.
float* begin_mapped(std::optional<CudaMapping>& mapping, const CudaRegistration& resource) {
  mapping.emplace(resource.get());
  return mapping->pointer<float>();
}

void end_mapped(std::optional<CudaMapping>& mapping) {
  mapping.value().unmap();
  mapping.reset();
}

// One GL buffer holding the frame, shown either in place as a texture buffer or copied into
// a 2D texture (the PBO path).
class BufferSurface : public Surface {
 public:
  BufferSurface(int w, int h, bool texture_buffer, bool interop)
      : Surface(w, h), texture_buffer_(texture_buffer), interop_(interop) {
    const GLenum target = texture_buffer ? GL_TEXTURE_BUFFER : GL_PIXEL_UNPACK_BUFFER;
    glBindBuffer(target, buffer_.id());
    glBufferData(target, frame_bytes(w, h), nullptr, GL_STREAM_DRAW);
    glBindBuffer(target, 0);
    if (texture_buffer) {
      glBindTexture(GL_TEXTURE_BUFFER, texture_.id());
      glTexBuffer(GL_TEXTURE_BUFFER, GL_RG32F, buffer_.id());
      glBindTexture(GL_TEXTURE_BUFFER, 0);
    } else {
      glBindTexture(GL_TEXTURE_2D, texture_.id());
      glTexStorage2D(GL_TEXTURE_2D, 1, GL_RG32F, w, h);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glBindTexture(GL_TEXTURE_2D, 0);
    }
    check_error("creating the frame buffer");
    if (interop)
      resource_ = register_buffer(buffer_.id());
    else
      host_.resize(static_cast<std::size_t>(w) * h * kFloatsPerPixel);
  }

  std::string describe() const override {
    std::string s = texture_buffer_ ? "texture buffer, read in place" : "PBO copied to a texture";
    return interop_ ? "CUDA-GL interop: " + s : "host upload: " + s;
  }
  bool device_memory() const override { return interop_; }
  PresentMode mode() const override {
    return texture_buffer_ ? PresentMode::TextureBuffer : PresentMode::PboTexture;
  }

  float* begin_frame() override {
    if (!interop_) return host_.data();
    return begin_mapped(mapping_, resource_);
  }

  void end_frame() override {
    if (interop_) {
      end_mapped(mapping_);
    } else {
      // In pieces: a 16384x16384 frame is 2 GiB, past what a driver's int-sized copy takes
      // (Mesa's memcpy got a negative size).
      const GLenum target = texture_buffer_ ? GL_TEXTURE_BUFFER : GL_PIXEL_UNPACK_BUFFER;
      glBindBuffer(target, buffer_.id());
      const std::size_t total = frame_bytes(width_, height_);
      const auto* bytes = reinterpret_cast<const char*>(host_.data());
      for (std::size_t at = 0; at < total; at += kUploadPiece)
        glBufferSubData(target, static_cast<GLintptr>(at),
                        static_cast<GLsizeiptr>(std::min(kUploadPiece, total - at)), bytes + at);
      glBindBuffer(target, 0);
    }
    if (!texture_buffer_) {
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_.id());
      glBindTexture(GL_TEXTURE_2D, texture_.id());
      glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
      // Row bands of at most kUploadPiece bytes, for the same reason.
      const std::size_t row = frame_bytes(width_, 1);
      const int band = static_cast<int>(std::max<std::size_t>(1, kUploadPiece / row));
      for (int y = 0; y < height_; y += band)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, width_, std::min(band, height_ - y), GL_RG,
                        GL_FLOAT,
                        reinterpret_cast<const void*>(static_cast<std::uintptr_t>(y) * row));
      glBindTexture(GL_TEXTURE_2D, 0);
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    }
  }

  GLenum data_target() const override {
    return texture_buffer_ ? GL_TEXTURE_BUFFER : GL_TEXTURE_2D;
  }
  std::vector<float> read_back() const override {
    if (!texture_buffer_) return read_texture(texture_.id(), width_, height_);
    std::vector<float> v(static_cast<std::size_t>(width_) * height_ * kFloatsPerPixel);
    glBindBuffer(GL_TEXTURE_BUFFER, buffer_.id());
    glGetBufferSubData(GL_TEXTURE_BUFFER, 0, v.size() * sizeof(float), v.data());
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return v;
  }
  GLuint data_texture() const override { return texture_.id(); }

 private:
  bool texture_buffer_, interop_;
  Buffer buffer_;
  Texture texture_;
  CudaRegistration resource_;
  std::optional<CudaMapping> mapping_;  // declared after resource_: unmapped before unregistering
  std::vector<float> host_;
};

// The texture itself registered with CUDA: the kernel writes a linear buffer, copied into the
// texture's CUDA array (device to device) while mapped.
class ImageSurface : public Surface {
 public:
  ImageSurface(int w, int h)
      : Surface(w, h), scratch_(static_cast<size_t>(w) * h * kFloatsPerPixel) {
    glBindTexture(GL_TEXTURE_2D, texture_.id());
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RG32F, w, h);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    check_error("creating the frame texture");
    cudaGraphicsResource_t r = nullptr;
    CUDA_CHECK(cudaGraphicsGLRegisterImage(&r, texture_.id(), GL_TEXTURE_2D,
                                           cudaGraphicsRegisterFlagsWriteDiscard));
    resource_ = CudaRegistration(r);
  }

  std::string describe() const override {
    return "CUDA-GL interop: texture as CUDA array (device copy)";
  }
  bool device_memory() const override { return true; }
  PresentMode mode() const override { return PresentMode::ImageCopy; }
  float* begin_frame() override { return scratch_.get(); }
  void end_frame() override {
    CudaMapping mapping(resource_.get());
    const size_t row = static_cast<size_t>(width_) * kFloatsPerPixel * sizeof(float);
    CUDA_CHECK(cudaMemcpy2DToArray(mapping.array(), 0, 0, scratch_.get(), row, row, height_,
                                   cudaMemcpyDeviceToDevice));
    mapping.unmap();
  }
  GLenum data_target() const override { return GL_TEXTURE_2D; }
  GLuint data_texture() const override { return texture_.id(); }
  std::vector<float> read_back() const override {
    return read_texture(texture_.id(), width_, height_);
  }

 private:
  Texture texture_;
  DeviceBuffer<float> scratch_;
  CudaRegistration resource_;
};

}  // namespace

struct WarpBuffer::Impl {
  Buffer buffer;
  Texture texture;
  CudaRegistration resource;
  std::optional<CudaMapping> mapping;  // declared after resource: unmapped before unregistering
  std::vector<float> host;
};

WarpBuffer::WarpBuffer(long long warps, bool interop)
    : warps_(warps), interop_(interop), impl_(std::make_unique<Impl>()) {
  glBindBuffer(GL_TEXTURE_BUFFER, impl_->buffer.id());
  glBufferData(GL_TEXTURE_BUFFER, warps * sizeof(float), nullptr, GL_STREAM_DRAW);
  glBindTexture(GL_TEXTURE_BUFFER, impl_->texture.id());
  glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, impl_->buffer.id());
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  check_error("creating the warp buffer");
  if (interop)
    impl_->resource = register_buffer(impl_->buffer.id());
  else
    impl_->host.resize(warps);
}

WarpBuffer::~WarpBuffer() = default;

float* WarpBuffer::begin_frame() {
  if (!interop_) return impl_->host.data();
  return begin_mapped(impl_->mapping, impl_->resource);
}

void WarpBuffer::end_frame() {
  if (interop_) {
    end_mapped(impl_->mapping);
    return;
  }
  glBindBuffer(GL_TEXTURE_BUFFER, impl_->buffer.id());
  glBufferSubData(GL_TEXTURE_BUFFER, 0, warps_ * sizeof(float), impl_->host.data());
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

GLuint WarpBuffer::texture() const {
  return impl_->texture.id();
}

long long max_texture_buffer_texels() {
  GLint n = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &n);
  return n;
}

std::unique_ptr<Surface> make_interop_surface(PresentMode mode, int width, int height) {
  const long long texels = static_cast<long long>(width) * height;
  if (mode == PresentMode::Auto) {
    mode = texels <= max_texture_buffer_texels() ? PresentMode::TextureBuffer
                                                 : PresentMode::PboTexture;
  }
  switch (mode) {
    case PresentMode::TextureBuffer:
      if (texels > max_texture_buffer_texels())
        throw std::runtime_error("image larger than this GL's texture-buffer limit");
      return std::make_unique<BufferSurface>(width, height, true, true);
    case PresentMode::PboTexture:
      return std::make_unique<BufferSurface>(width, height, false, true);
    case PresentMode::ImageCopy:
    case PresentMode::Auto: break;
  }
  return std::make_unique<ImageSurface>(width, height);
}

std::unique_ptr<Surface> make_host_surface(int width, int height) {
  const bool tbo = static_cast<long long>(width) * height <= max_texture_buffer_texels();
  return std::make_unique<BufferSurface>(width, height, tbo, false);
}

}  // namespace mp::gl
