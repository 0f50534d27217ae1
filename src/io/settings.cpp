#include "io/settings.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/colour_settings.h"
#include "io/files.h"

namespace mp {
namespace {

// An integer field: a JSON integer in [lo, hi] (not a float, not a boolean, not one that
// overflows int: nlohmann's get<int> would convert any of them silently).
int int_field(const nlohmann::json& j, const char* key, int lo, int hi) {
  const nlohmann::json& v = j.at(key);
  auto out_of_range = [&] {
    return std::out_of_range(std::string(key) + " " + v.dump() + " is not a whole number in " +
                             std::to_string(lo) + ".." + std::to_string(hi));
  };
  if (!v.is_number_integer()) throw out_of_range();
  if (v.is_number_unsigned()) {  // every literal without a minus sign, 0 included
    const std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(u) < lo)
      throw out_of_range();
    return static_cast<int>(u);
  }
  const std::int64_t x = v.get<std::int64_t>();
  if (x < lo || x > hi) throw out_of_range();
  return static_cast<int>(x);
}

}  // namespace

std::optional<std::string> read_state_file(const std::filesystem::path& file, std::string* warning,
                                           std::uintmax_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);  // follows a symlink
  if (!std::filesystem::exists(status)) return std::nullopt;
  auto refuse = [&](const std::string& why) {
    if (warning) *warning = "ignoring " + file.string() + ": " + why;
    return std::nullopt;
  };
  if (!std::filesystem::is_regular_file(status)) return refuse("not a regular file");
  const std::string too_large = "larger than " + std::to_string(max_bytes >> 20) + " MiB, not read";
  if (std::filesystem::file_size(file, ec) > max_bytes && !ec) return refuse(too_large);
  std::ifstream in(file, std::ios::binary);
  if (!in) return refuse(std::string("cannot be read (") + std::strerror(errno) + ")");
  // One byte past the cap tells a file that grew since its size was taken.
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return refuse("cannot be read");
  if (static_cast<std::uintmax_t>(in.gcount()) > max_bytes) return refuse(too_large);
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

Settings load_settings(const std::filesystem::path& file, std::string* warning) {
  Settings s;
  std::string why;
  const std::optional<std::string> text = read_state_file(file, &why);
  if (!text) {
    if (warning && !why.empty()) *warning = why;
    return s;
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(*text);
    if (!j.is_object()) throw std::out_of_range("not a JSON object");
    if (j.contains("window_x") && j.contains("window_y")) {
      s.window_x = int_field(j, "window_x", -kMaxWindowPosition, kMaxWindowPosition);
      s.window_y = int_field(j, "window_y", -kMaxWindowPosition, kMaxWindowPosition);
    }
    if (j.contains("window_width"))
      s.window_width = int_field(j, "window_width", kMinWindowSide, kMaxWindowSide);
    if (j.contains("window_height"))
      s.window_height = int_field(j, "window_height", kMinWindowSide, kMaxWindowSide);
    if (j.contains("palette")) {
      if (!j.at("palette").is_string()) throw std::out_of_range("palette is not a name");
      s.palette = j.at("palette").get<std::string>();
    }
    s.colour = colour_params_from_json(j, s.colour);
    s.ui_scale = json_float(j, "ui_scale", kMinUiScale, kMaxUiScale, s.ui_scale);
  } catch (const std::exception& e) {  // malformed JSON, wrong types, bad values
    if (warning) *warning = "ignoring " + file.string() + ": " + e.what();
    return Settings{};
  }
  return s;
}

void write_state_file(const std::filesystem::path& file, const std::string& text) {
  // Each link followed by hand, a dangling one too (its target is created), as far as the kernel
  // follows them; past that it is a loop, refused rather than replaced by a file.
  constexpr int kMaxLinks = 40;
  std::filesystem::path target = file;
  for (int links = 0;; ++links) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(target, ec)) break;
    if (links == kMaxLinks)
      throw std::runtime_error("cannot write " + file.string() + ": too many symlinks (a loop?)");
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec) throw std::runtime_error("cannot write " + file.string() + ": " + ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  write_file_atomic(target, text);
}

void save_settings(const std::filesystem::path& file, const Settings& s) {
  auto clamp_float = [](float v, float lo, float hi, float fallback) {
    return tidy(std::isfinite(v) ? std::clamp(v, lo, hi) : fallback);
  };
  const ColourParams defaults;
  // Keys this version does not know (a newer one's, the user's) are written back as they were.
  nlohmann::json j = nlohmann::json::object();
  if (const std::optional<std::string> old = read_state_file(file, nullptr)) {
    nlohmann::json parsed = nlohmann::json::parse(*old, nullptr, false);
    if (parsed.is_object()) j = std::move(parsed);
  }
  j["window_width"] = std::clamp(s.window_width, kMinWindowSide, kMaxWindowSide);
  j["window_height"] = std::clamp(s.window_height, kMinWindowSide, kMaxWindowSide);
  j["palette"] = s.palette;
  j["density"] = clamp_float(s.colour.density, kMinDensity, kMaxDensity, defaults.density);
  j["offset"] = clamp_float(s.colour.offset, 0.0f, 1.0f, defaults.offset);
  j["stripe"] = clamp_float(s.colour.stripe, 0.0f, 1.0f, defaults.stripe);
  j["ui_scale"] = clamp_float(s.ui_scale, kMinUiScale, kMaxUiScale, Settings().ui_scale);
  if (s.window_x && s.window_y) {
    j["window_x"] = std::clamp(*s.window_x, -kMaxWindowPosition, kMaxWindowPosition);
    j["window_y"] = std::clamp(*s.window_y, -kMaxWindowPosition, kMaxWindowPosition);
  }
  write_state_file(file, j.dump(2) + "\n");
}

}  // namespace mp
