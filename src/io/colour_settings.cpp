#include "io/colour_settings.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "io/settings.h"

namespace mp {

double tidy(float f) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text - 1, f).ptr;
  *end = '\0';
  return std::strtod(text, nullptr);
}

float json_float(const nlohmann::json& j, const char* key, float lo, float hi, float fallback) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j.at(key);
  char range[64];
  std::snprintf(range, sizeof range, "%g to %g", lo, hi);
  if (!v.is_number())
    throw std::out_of_range(std::string(key) + " " + v.dump() + " is not a number (" + range + ")");
  if (!std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi)
    throw std::out_of_range(std::string(key) + " " + v.dump() + " is outside " + range);
  return v.get<float>();
}

ColourParams colour_params_from_json(const nlohmann::json& j, ColourParams fallback) {
  ColourParams c = fallback;
  c.density = json_float(j, "density", kMinDensity, kMaxDensity, c.density);
  c.offset = json_float(j, "offset", 0.0f, 1.0f, c.offset);
  c.stripe = json_float(j, "stripe", 0.0f, 1.0f, c.stripe);
  return c;
}

nlohmann::json colour_settings_json(const ColourSettings& c) {
  return {{"palette", c.palette},
          {"density", tidy(c.params.density)},
          {"offset", tidy(c.params.offset)},
          {"stripe", tidy(c.params.stripe)}};
}

ColourSettings colour_settings_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::out_of_range("colour settings are not a JSON object");
  ColourSettings c;
  if (j.contains("palette")) {
    if (!j.at("palette").is_string()) throw std::out_of_range("palette is not a name");
    c.palette = j.at("palette").get<std::string>();
  }
  c.params = colour_params_from_json(j, c.params);
  return c;
}

}  // namespace mp
