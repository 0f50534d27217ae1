#include "bookmarks.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace mp {

std::vector<Bookmark> parse_bookmarks(std::string_view text) {
  std::vector<Bookmark> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const auto& b : j.at("bookmarks")) {
      Bookmark bm;
      bm.name = b.at("name").get<std::string>();
      bm.view.center_x = b.at("center").at(0).get<double>();
      bm.view.center_y = b.at("center").at(1).get<double>();
      bm.view.span = b.at("span").get<double>();
      // A whole number in range, checked before it is converted: a float or an integer past
      // 64 bits would make the conversion undefined.
      const nlohmann::json& n = b.at("iters");
      const bool whole = n.is_number_unsigned() || n.is_number_integer();
      const double iters = whole ? n.get<double>() : 0;
      if (!std::isfinite(bm.view.center_x) || !std::isfinite(bm.view.center_y))
        throw std::runtime_error("'" + bm.name + "': centre must be finite");
      if (!(bm.view.span > 0) || !std::isfinite(bm.view.span))
        throw std::runtime_error("'" + bm.name + "': span must be > 0");
      if (!whole || iters < 1 || iters > kMaxIterations)
        throw std::runtime_error("'" + bm.name + "': iters must be a whole number in 1..10^7");
      bm.view.max_iter = static_cast<unsigned>(iters);
      out.push_back(std::move(bm));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("bookmarks: ") + e.what());
  }
  return out;
}

}  // namespace mp
