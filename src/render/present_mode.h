// How CUDA's output reaches the colour shader.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace mp {

enum class PresentMode {
  Auto,           // the measured-fastest that fits (texture buffer, else PBO)
  TextureBuffer,  // registered GL buffer read in place by the shader (samplerBuffer): no copy
  PboTexture,     // registered pixel-unpack buffer, copied into a texture each frame
  ImageCopy,      // texture registered as a CUDA array; the kernel's buffer copied into it
};

// Every mode, in the order help and errors name them.
inline constexpr PresentMode kPresentModes[] = {PresentMode::Auto, PresentMode::TextureBuffer,
                                                PresentMode::PboTexture, PresentMode::ImageCopy};

const char* present_mode_name(PresentMode m);  // auto, tbo, pbo, image
std::string present_mode_names();              // "auto, tbo, pbo, image"
std::optional<PresentMode> parse_present_mode(std::string_view s);

}  // namespace mp
