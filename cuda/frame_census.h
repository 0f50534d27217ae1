// Counts over a finished frame in device memory (2 floats a pixel, the smooth value first), for
// decisions taken between frames without reading the image back.
#pragma once

#include <cstddef>

namespace mp {

// Pixels whose smooth value is above `threshold` (escaped ones past that many steps), counted
// in `device_counter` (one value of device memory, the caller's so that no frame allocates).
// Blocks until the count is back.
unsigned long long count_pixels_above(const float* device_pixels, std::size_t pixels,
                                      float threshold, unsigned long long* device_counter);

}  // namespace mp
