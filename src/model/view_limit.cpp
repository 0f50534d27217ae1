#include "model/view_limit.h"

#include <algorithm>
#include <stdexcept>

#include "kernel_params.h"

namespace mp {

ViewLimit view_limit(const std::vector<unsigned>& counts, int width, int height,
                     const PipeRates& rates, int sm_count, double clock_hz) {
  if (width < 1 || height < 1 || counts.size() != static_cast<std::size_t>(width) * height)
    throw std::invalid_argument("view_limit: counts do not match the image size");
  if (sm_count < 1 || clock_hz <= 0)
    throw std::invalid_argument("view_limit: needs the SM count and a clock");
  ViewLimit l;
  constexpr int kTileW = kBlockW, kTileH = 32 / kBlockW;  // the kernels' warp tile
  for (int ty = 0; ty < height; ty += kTileH)
    for (int tx = 0; tx < width; tx += kTileW) {
      unsigned slowest = 0;
      for (int y = ty; y < std::min(ty + kTileH, height); ++y)
        for (int x = tx; x < std::min(tx + kTileW, width); ++x) {
          const unsigned n = counts[static_cast<std::size_t>(y) * width + x];
          slowest = std::max(slowest, n);
          l.pixel_steps += n;
        }
      l.warp_steps += slowest;
    }
  // The four instructions are FMA-pipe ones, and each takes an issue slot: the slower of the two
  // rates sets the pace (on sm_90 both are one warp-instruction per clock per SM sub-partition).
  const double per_clock = sm_count * std::min(rates[Pipe::Fma], rates[Pipe::Issue]);
  const double ms_per_warp_step = kLimitSlotsPerStep / per_clock / clock_hz * 1e3;
  l.aware_ms = l.warp_steps * ms_per_warp_step;
  l.free_ms = l.pixel_steps / 32.0 * ms_per_warp_step;
  l.clock_ghz = clock_hz / 1e9;
  return l;
}

}  // namespace mp
