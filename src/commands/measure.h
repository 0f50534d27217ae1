// Timing variants the same way everywhere (bench, the window's "compare all"): warm-up
// frames, then the median of timed frames, plus a pixel-by-pixel comparison with fma4.
#pragma once

#include <string>
#include <vector>

#include "commands/common.h"

namespace mp {

// The frame with the median kernel time (lower median), so its numbers belong together.
GpuFrameStats median_frame(std::vector<GpuFrameStats> frames);

// Every variant in `variants` at `view`, width x height: `warmup` untimed frames, the median
// of `frames` timed ones, and how many pixels' step counts differ from fma4's.
std::vector<MeasuredRow> measure_variants(GpuRenderer& gpu, const std::string& view_name,
                                          const View& view, int width, int height,
                                          const std::vector<VariantId>& variants, int frames,
                                          int warmup, const LoadedSass* sass);

}  // namespace mp
