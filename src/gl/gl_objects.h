// RAII names for GL objects. Each owns one name and deletes it with the context current.
#pragma once

#include <string>
#include <utility>

#include "gl/gl.h"

namespace mp::gl {

template <class Traits>
class Name {
 public:
  Name() : id_(Traits::create()) {}
  explicit Name(GLenum arg) : id_(Traits::create(arg)) {}
  ~Name() {
    if (id_) Traits::destroy(id_);
  }
  Name(Name&& o) noexcept : id_(std::exchange(o.id_, 0)) {}
  Name& operator=(Name&& o) noexcept {
    std::swap(id_, o.id_);
    return *this;
  }
  Name(const Name&) = delete;
  Name& operator=(const Name&) = delete;
  GLuint id() const { return id_; }

 private:
  GLuint id_;
};

struct BufferTraits {
  static GLuint create() {
    GLuint n;
    glGenBuffers(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteBuffers(1, &n); }
};
struct TextureTraits {
  static GLuint create() {
    GLuint n;
    glGenTextures(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteTextures(1, &n); }
};
struct VertexArrayTraits {
  static GLuint create() {
    GLuint n;
    glGenVertexArrays(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteVertexArrays(1, &n); }
};
struct FramebufferTraits {
  static GLuint create() {
    GLuint n;
    glGenFramebuffers(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteFramebuffers(1, &n); }
};
struct RenderbufferTraits {
  static GLuint create() {
    GLuint n;
    glGenRenderbuffers(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteRenderbuffers(1, &n); }
};
struct QueryTraits {
  static GLuint create() {
    GLuint n;
    glGenQueries(1, &n);
    return n;
  }
  static void destroy(GLuint n) { glDeleteQueries(1, &n); }
};
struct ProgramTraits {
  static GLuint create() { return glCreateProgram(); }
  static void destroy(GLuint n) { glDeleteProgram(n); }
};
struct ShaderTraits {
  static GLuint create(GLenum type) { return glCreateShader(type); }
  static void destroy(GLuint n) { glDeleteShader(n); }
};

using Buffer = Name<BufferTraits>;
using Texture = Name<TextureTraits>;
using VertexArray = Name<VertexArrayTraits>;
using Framebuffer = Name<FramebufferTraits>;
using Renderbuffer = Name<RenderbufferTraits>;
using Query = Name<QueryTraits>;
using Program = Name<ProgramTraits>;
using Shader = Name<ShaderTraits>;

// Compiles and links; throws std::runtime_error with the driver's log on failure.
Program link_program(const std::string& vertex_src, const std::string& fragment_src);

// Throws std::runtime_error("GL error 0x... after WHAT") if the context has a pending error.
void check_error(const char* what);

}  // namespace mp::gl
