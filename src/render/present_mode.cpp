#include "render/present_mode.h"

namespace mp {

const char* present_mode_name(PresentMode m) {
  switch (m) {
    case PresentMode::Auto: return "auto";
    case PresentMode::TextureBuffer: return "tbo";
    case PresentMode::PboTexture: return "pbo";
    case PresentMode::ImageCopy: return "image";
  }
  return "?";
}

std::optional<PresentMode> parse_present_mode(std::string_view s) {
  for (PresentMode m : {PresentMode::Auto, PresentMode::TextureBuffer, PresentMode::PboTexture,
                        PresentMode::ImageCopy})
    if (s == present_mode_name(m)) return m;
  return std::nullopt;
}

}  // namespace mp
