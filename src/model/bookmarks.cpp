#include "bookmarks.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace mp {
namespace {

// The span as text ("3.2e-457", what is written now) or a number (older files).
FloatExp span_of(const nlohmann::json& j, const std::string& name) {
  std::optional<FloatExp> span;
  if (j.is_string()) {
    span = parse_view_span(j.get<std::string>());
  } else if (j.is_number()) {
    const double v = j.get<double>();
    if (v > 0 && v <= kMaxSpan) span = to_floatexp(v);
  }
  if (!span) throw std::runtime_error("'" + name + "': span must be > 0 and at most 64");
  return *span;
}

// A centre coordinate as decimal text of any length, or a number (older files); read at the
// precision the view's span needs.
BigReal coordinate_of(const nlohmann::json& j, const View& v, const std::string& name) {
  std::optional<BigReal> c;
  if (j.is_string()) {
    c = parse_centre(j.get<std::string>(), v);
  } else if (j.is_number() && std::abs(j.get<double>()) <= kMaxCentre) {
    c = BigReal(j.get<double>(), view_bits(v));
  }
  if (!c) throw std::runtime_error("'" + name + "': centre must be numbers within +-1000");
  return *c;
}

// The JSON library's message after its "[json.exception.parse_error.101] " tag.
std::string untagged(const nlohmann::json::exception& e) {
  const std::string what = e.what();
  const std::size_t tag = what.find("] ");
  return tag == std::string::npos ? what : what.substr(tag + 2);
}

}  // namespace

std::vector<Bookmark> parse_bookmarks(std::string_view text) {
  std::vector<Bookmark> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const auto& b : j.at("bookmarks")) {
      Bookmark bm;
      if (!b.is_object() || !b.contains("name") || !b.at("name").is_string())
        throw std::runtime_error("bookmark " + std::to_string(out.size() + 1) +
                                 ": needs a \"name\" that is text");
      bm.name = b.at("name").get<std::string>();
      for (const char* key : {"span", "center", "iters"})
        if (!b.contains(key)) throw std::runtime_error("'" + bm.name + "': " + key + " missing");
      if (!b.at("center").is_array() || b.at("center").size() != 2)
        throw std::runtime_error("'" + bm.name + "': center must be a list of two coordinates");
      bm.view.span = span_of(b.at("span"), bm.name);
      bm.view.center_x = coordinate_of(b.at("center").at(0), bm.view, bm.name);
      bm.view.center_y = coordinate_of(b.at("center").at(1), bm.view, bm.name);
      // A whole number in range, checked before it is converted: a float or an integer past
      // 64 bits would make the conversion undefined.
      const nlohmann::json& n = b.at("iters");
      const bool whole = n.is_number_unsigned() || n.is_number_integer();
      const double iters = whole ? n.get<double>() : 0;
      if (!whole || iters < 1 || iters > kMaxIterations)
        throw std::runtime_error("'" + bm.name + "': iters must be a whole number in 1..10^7");
      bm.view.max_iter = static_cast<unsigned>(iters);
      out.push_back(std::move(bm));
    }
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error("not valid JSON (" + untagged(e) + ")");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("bookmarks: " + untagged(e));
  }
  return out;
}

}  // namespace mp
