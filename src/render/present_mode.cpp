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

std::string present_mode_names() {
  std::string names;
  for (PresentMode m : kPresentModes)
    names += (names.empty() ? "" : ", ") + std::string(present_mode_name(m));
  return names;
}

std::optional<PresentMode> parse_present_mode(std::string_view s) {
  for (PresentMode m : kPresentModes)
    if (s == present_mode_name(m)) return m;
  return std::nullopt;
}

}  // namespace mp
