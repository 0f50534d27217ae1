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
uniform float u_density;
uniform float u_offset;
uniform float u_stripe;
// Divergence view: per-warp SIMT efficiency (warps of 16x2 pixels, 8 per 16x16 block).
uniform samplerBuffer u_warp_efficiency;
uniform int u_show_divergence;
uniform int u_blocks_across;
out vec4 o_colour;

// The image turns grey and dim so that the warps show on any palette: a warp whose lanes all
// iterated to the end stays grey, one with idle lanes is painted from blue (a few idled) over
// yellow to red (most idled), the share of idle lanes being 1 - efficiency.
vec3 divergence_tint(vec3 c, ivec2 pixel) {
  int warp = ((pixel.y / 16) * u_blocks_across + pixel.x / 16) * 8 + (pixel.y % 16) / 2;
  float idle = 1.0 - texelFetch(u_warp_efficiency, warp).r;
  vec3 grey = vec3(0.45 * dot(c, vec3(0.299, 0.587, 0.114)));
  vec3 heat = idle < 0.5 ? mix(vec3(0.15, 0.35, 1.0), vec3(1.0, 0.9, 0.1), idle * 2.0)
                         : mix(vec3(1.0, 0.9, 0.1), vec3(1.0, 0.05, 0.05), idle * 2.0 - 1.0);
  return mix(grey, heat, 0.9 * smoothstep(0.0, 0.1, idle));
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int row = u_size.y - 1 - p.y;  // data rows run top to bottom
#ifdef MP_DATA_BUFFER
  vec2 d = texelFetch(u_data, row * u_size.x + p.x).rg;
#else
  vec2 d = texelFetch(u_data, ivec2(p.x, row), 0).rg;
#endif
  vec3 c = vec3(0.0);
  if (d.x >= 0.0) {
    float t = fract(log2(d.x + 1.0) * u_density + u_offset);
    float shade = 1.0 + u_stripe * 0.5 * d.y;
    c = clamp(texture(u_lut, t).rgb * shade, 0.0, 1.0);
  }
  if (u_show_divergence != 0) c = divergence_tint(c, ivec2(p.x, row));
  o_colour = vec4(c, 1.0);
}
