// palettes.json: parsed into palettes whose lookup table and colours can be built, or refused
// with one line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "model/palette.h"
#include "one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    for (const mp::Palette& p : mp::parse_palettes({reinterpret_cast<const char*>(data), size})) {
      const std::vector<std::uint8_t> lut = mp::build_lut(p);
      if (lut.size() != 4 * mp::kLutSize) std::abort();
      for (float smooth : {-1.0f, 0.0f, 0.37f, 5.5f, 1e30f})
        mp::colourize(smooth, 0.5f, lut, mp::ColourParams{});
    }
  } catch (const std::exception& e) {
    mp::fuzz::expect_one_line(e.what(), "parse_palettes");
  }
  return 0;
}
