// render's colouring on the GPU: a piece's samples, left on the device by the render kernels,
// into 8-bit RGB rows by the palette's formula (host_device/colour.h), averaged over ss x ss
// samples, so that only RGB crosses the bus and the CPU only filters and deflates it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "colour.h"

struct CUstream_st;

namespace mp {

// The palette's LUT (kLutSize RGBA8 texels) and the colour settings, passed by value to the kernel.
struct ColourLook {
  alignas(4) std::uint8_t lut[kLutSize * 4];
  ColourParams params;
};

// Colours device samples `data` (gw x gh, kFloatsPerPixel floats each) into device `rgb`:
// (gw / ss) x (gh / ss) pixels of 3 bytes, rows `pitch` bytes apart. Queued on `stream`.
void colour_on_device(const float* data, int gw, int gh, int ss, const ColourLook& look,
                      std::uint8_t* rgb, std::size_t pitch, CUstream_st* stream);

}  // namespace mp
