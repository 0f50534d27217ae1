// The colour settings a picture was made with (palette, density, offset, stripe), as the render
// sidecar and the window's capture sidecar record them, so that either can be made again.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/palette.h"

namespace mp {

struct ColourSettings {
  std::string palette = "ember";
  ColourParams params;
};

// {"palette": name, "density": d, "offset": o, "stripe": s}
nlohmann::json colour_settings_json(const ColourSettings& c);
// Absent fields keep their defaults; throws std::out_of_range naming a field of the wrong type or
// outside the range the window's settings accept.
ColourSettings colour_settings_from_json(const nlohmann::json& j);

}  // namespace mp
