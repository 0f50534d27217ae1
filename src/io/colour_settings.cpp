#include "io/colour_settings.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "io/settings.h"

namespace mp {
namespace {

float number(const nlohmann::json& j, const char* key, float lo, float hi, float fallback) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
      v.get<double>() > hi)
    throw std::out_of_range(std::string(key) + " " + v.dump() + " is outside " +
                            std::to_string(lo) + ".." + std::to_string(hi));
  return v.get<float>();
}

// The shortest decimal that reads back as the same float: 0.6, not 0.6000000238418579.
double tidy(float f) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text - 1, f).ptr;
  *end = '\0';
  return std::strtod(text, nullptr);
}

}  // namespace

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
  c.params.density = number(j, "density", kMinDensity, kMaxDensity, c.params.density);
  c.params.offset = number(j, "offset", 0.0f, 1.0f, c.params.offset);
  c.params.stripe = number(j, "stripe", 0.0f, 1.0f, c.params.stripe);
  return c;
}

}  // namespace mp
