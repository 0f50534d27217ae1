#include "gl/colourizer.h"

#include <string>

#include "io/embedded.h"
#include "kernel_params.h"

namespace mp::gl {
namespace {

// The fragment shader in two flavours: a define goes right after its #version line.
std::string with_define(std::string_view src, const char* define) {
  const std::size_t eol = src.find('\n');
  return std::string(src.substr(0, eol + 1)) + "#define " + define + "\n" +
         std::string(src.substr(eol + 1));
}

}  // namespace

Colourizer::Colourizer()
    : buffer_program_(link_program(std::string(embedded::fullscreen_vert),
                                   with_define(embedded::colourize_frag, "MP_DATA_BUFFER"))),
      texture_program_(link_program(std::string(embedded::fullscreen_vert),
                                    with_define(embedded::colourize_frag, "MP_DATA_TEXTURE"))) {
  glBindTexture(GL_TEXTURE_1D, lut_.id());
  glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_1D, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glBindTexture(GL_TEXTURE_1D, 0);
  check_error("creating the colourizer");
}

void Colourizer::set_palette(const Palette& p) {
  const auto lut = build_lut(p);
  glBindTexture(GL_TEXTURE_1D, lut_.id());
  glTexImage1D(GL_TEXTURE_1D, 0, GL_RGBA8, kLutSize, 0, GL_RGBA, GL_UNSIGNED_BYTE, lut.data());
  glBindTexture(GL_TEXTURE_1D, 0);
}

void Colourizer::draw(const Surface& s, const ColourParams& c, const WarpBuffer* divergence) {
  const bool buffer = s.data_target() == GL_TEXTURE_BUFFER;
  const GLuint prog = buffer ? buffer_program_.id() : texture_program_.id();
  glUseProgram(prog);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(s.data_target(), s.data_texture());
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_1D, lut_.id());
  glUniform1i(glGetUniformLocation(prog, "u_data"), 0);
  glUniform1i(glGetUniformLocation(prog, "u_lut"), 1);
  glUniform2i(glGetUniformLocation(prog, "u_size"), s.width(), s.height());
  glUniform1f(glGetUniformLocation(prog, "u_density"), c.density);
  glUniform1f(glGetUniformLocation(prog, "u_offset"), c.offset);
  glUniform1f(glGetUniformLocation(prog, "u_stripe"), c.stripe);
  glUniform1i(glGetUniformLocation(prog, "u_show_divergence"), divergence ? 1 : 0);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_BUFFER, divergence ? divergence->texture() : 0);
  glUniform1i(glGetUniformLocation(prog, "u_warp_efficiency"), 2);
  glUniform1i(glGetUniformLocation(prog, "u_blocks_across"), blocks_across(s.width()));
  glBindVertexArray(vao_.id());
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glBindTexture(GL_TEXTURE_1D, 0);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(s.data_target(), 0);
  glUseProgram(0);
}

}  // namespace mp::gl
