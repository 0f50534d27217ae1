// The previous frame moved and scaled to a new view, shown while the new view's frame renders
// (as XaoS does): each pixel takes the previous frame's pixel nearest its point of the plane.
#pragma once

#include <cmath>

#include "hd.h"
#include "kernel_params.h"

struct CUstream_st;  // cudaStream_t, without the CUDA runtime's headers in host code

namespace mp {

// What a pixel the previous frame did not cover shows: the colour of a point inside the set
// (the shader's "never escaped"), so that the preview's edges read as unknown, not as an orbit.
inline constexpr float kUnknownSmooth = -1.0f;

// Index into `from`'s pixels of the one nearest pixel (px, py) of `to`, or -1 where `from`
// does not cover it. A comparison rather than a cast guards every conversion, so grids of any
// size or a NaN in either give -1, not undefined behaviour.
MP_HD long long reprojected_source(const PixelGrid& from, const PixelGrid& to, int px, int py) {
  const double fx = (to.x0 + px * to.dx - from.x0) / from.dx;
  const double fy = (to.y0 + py * to.dy - from.y0) / from.dy;
  if (!(fx >= -0.5 && fx < from.width - 0.5 && fy >= -0.5 && fy < from.height - 0.5)) return -1;
  const long long sx = static_cast<long long>(fx + 0.5), sy = static_cast<long long>(fy + 0.5);
  return sy * from.width + sx;
}

// `dst` (to.width x to.height pixels of kFloatsPerPixel floats) from `src` (from's pixels).
inline void reproject_on_host(const PixelGrid& from, const float* src, const PixelGrid& to,
                              float* dst) {
  for (int py = 0; py < to.height; ++py)
    for (int px = 0; px < to.width; ++px) {
      const long long s = reprojected_source(from, to, px, py);
      float* d = dst + (static_cast<long long>(py) * to.width + px) * kFloatsPerPixel;
      d[0] = s < 0 ? kUnknownSmooth : src[s * kFloatsPerPixel];
      d[1] = s < 0 ? 0.0f : src[s * kFloatsPerPixel + 1];
    }
}

// The same on the GPU, enqueued on `stream`; `src` and `dst` are device memory.
void reproject_on_device(const PixelGrid& from, const float* src, const PixelGrid& to, float* dst,
                         CUstream_st* stream);

}  // namespace mp
