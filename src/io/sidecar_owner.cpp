#include "io/sidecar_owner.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace mp {
namespace {

// Reads until the top level's "mandelpipe" key, then stops: a sidecar's other values (a deep
// centre's millions of digits) are not read whole.
struct FindsOurKey : nlohmann::json_sax<nlohmann::json> {
  int depth = 0;
  bool found = false;
  bool key(string_t& k) override {
    found = depth == 1 && k == "mandelpipe";
    return !found;
  }
  bool start_object(std::size_t) override { return ++depth > 0; }
  bool end_object() override { return --depth >= 0; }
  bool start_array(std::size_t) override { return ++depth > 0; }
  bool end_array() override { return --depth >= 0; }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

}  // namespace

void check_sidecar_is_ours(const std::filesystem::path& sidecar) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(sidecar, ec)) return;  // none (a folder is refused apart)
  std::ifstream in(sidecar, std::ios::binary);
  FindsOurKey sax;
  if (in) nlohmann::json::sax_parse(in, &sax, nlohmann::json::input_format_t::json, false);
  if (!sax.found)
    throw std::runtime_error("--out: " + sidecar.string() +
                             " exists and is not a mandelpipe sidecar (no \"mandelpipe\" key), "
                             "which render would replace: choose another --out, or move it");
}

}  // namespace mp
