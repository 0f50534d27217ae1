#include "gl/gl_objects.h"

#include <cstdio>
#include <stdexcept>

namespace mp::gl {
namespace {

Shader compile(GLenum type, const std::string& src) {
  Shader s(type);
  const char* p = src.c_str();
  glShaderSource(s.id(), 1, &p, nullptr);
  glCompileShader(s.id());
  GLint ok = 0;
  glGetShaderiv(s.id(), GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s.id(), sizeof log, nullptr, log);
    throw std::runtime_error(std::string("shader compile failed: ") + log);
  }
  return s;
}

}  // namespace

Program link_program(const std::string& vertex_src, const std::string& fragment_src) {
  const Shader vs = compile(GL_VERTEX_SHADER, vertex_src);
  const Shader fs = compile(GL_FRAGMENT_SHADER, fragment_src);
  Program p;
  glAttachShader(p.id(), vs.id());
  glAttachShader(p.id(), fs.id());
  glLinkProgram(p.id());
  GLint ok = 0;
  glGetProgramiv(p.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(p.id(), sizeof log, nullptr, log);
    throw std::runtime_error(std::string("shader link failed: ") + log);
  }
  return p;
}

void check_error(const char* what) {
  const GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%04x", e);
    throw std::runtime_error(std::string("GL error ") + buf + " after " + what);
  }
}

}  // namespace mp::gl
