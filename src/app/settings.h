// Per-user state kept between runs in $XDG_CONFIG_HOME/mandelpipe/settings.json.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "model/palette.h"

namespace mp {

struct Settings {
  std::optional<int> window_x, window_y;
  int window_width = 1280, window_height = 720;
  std::string palette = "ember";
  ColourParams colour;
};

// Missing file: defaults. Unreadable, malformed or out of range: defaults, and `warning` says
// why (the caller then leaves the file alone rather than overwrite it).
Settings load_settings(const std::filesystem::path& file, std::string* warning);
void save_settings(const std::filesystem::path& file, const Settings& s);

}  // namespace mp
