#version 450 core
// Maps the kernel's per-pixel (smooth iteration value, aux) to colour. Keep in step with
// colourize() in src/model/palette.cpp: a test compares the two.
#ifdef MP_DATA_BUFFER
uniform samplerBuffer u_data;  // registered buffer read in place: no copy into a texture
#else
uniform sampler2D u_data;
#endif
uniform sampler1D u_lut;
uniform ivec2 u_size;    // data size in pixels
uniform ivec2 u_origin;  // framebuffer pixel where the data's bottom-left lands
uniform float u_density;
uniform float u_offset;
uniform float u_stripe;
out vec4 o_colour;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy) - u_origin;
  int row = u_size.y - 1 - p.y;  // data rows run top to bottom
#ifdef MP_DATA_BUFFER
  vec2 d = texelFetch(u_data, row * u_size.x + p.x).rg;
#else
  vec2 d = texelFetch(u_data, ivec2(p.x, row), 0).rg;
#endif
  if (d.x < 0.0) {
    o_colour = vec4(0.0, 0.0, 0.0, 1.0);
    return;
  }
  float t = fract(log2(d.x + 1.0) * u_density + u_offset);
  vec3 c = texture(u_lut, t).rgb;
  float shade = 1.0 + u_stripe * 0.5 * d.y;
  o_colour = vec4(clamp(c * shade, 0.0, 1.0), 1.0);
}
