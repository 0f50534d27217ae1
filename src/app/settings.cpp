#include "app/settings.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/files.h"

namespace mp {

Settings load_settings(const std::filesystem::path& file, std::string* warning) {
  Settings s;
  std::ifstream in(file);
  if (!in) return s;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.contains("window_x") && j.contains("window_y")) {
      s.window_x = j.at("window_x").get<int>();
      s.window_y = j.at("window_y").get<int>();
    }
    s.window_width = j.value("window_width", s.window_width);
    s.window_height = j.value("window_height", s.window_height);
    if (s.window_width < 64 || s.window_width > 16384 || s.window_height < 64 ||
        s.window_height > 16384)
      throw std::out_of_range("window size " + std::to_string(s.window_width) + "x" +
                              std::to_string(s.window_height) + " is out of range");
    s.palette = j.value("palette", s.palette);
    s.colour.density = j.value("density", s.colour.density);
    s.colour.offset = j.value("offset", s.colour.offset);
    s.colour.stripe = j.value("stripe", s.colour.stripe);
  } catch (const std::exception& e) {  // malformed JSON, wrong types, bad values
    if (warning) *warning = "ignoring " + file.string() + ": " + e.what();
    return Settings{};
  }
  return s;
}

void save_settings(const std::filesystem::path& file, const Settings& s) {
  nlohmann::json j = {{"window_width", s.window_width}, {"window_height", s.window_height},
                      {"palette", s.palette},           {"density", s.colour.density},
                      {"offset", s.colour.offset},      {"stripe", s.colour.stripe}};
  if (s.window_x && s.window_y) {
    j["window_x"] = *s.window_x;
    j["window_y"] = *s.window_y;
  }
  write_file_atomic(file, j.dump(2) + "\n");
}

}  // namespace mp
