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
// The same for density, offset and stripe alone, over `fallback` (settings.json holds them too).
ColourParams colour_params_from_json(const nlohmann::json& j, ColourParams fallback);
// A finite number in [lo, hi] at `key`, or `fallback` where there is none; throws
// std::out_of_range naming the field otherwise.
float json_float(const nlohmann::json& j, const char* key, float lo, float hi, float fallback);
// The shortest decimal that reads back as the same float: 0.6, not 0.6000000238418579.
double tidy(float f);

}  // namespace mp
