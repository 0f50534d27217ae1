#include "io/temp_names.h"

#include <limits.h>

#include <algorithm>

namespace mp {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPart = ".part-";
constexpr std::size_t kPartSize = 6;
constexpr std::size_t kRandomDigits = 16;
// pid_t's largest value has 10 digits.
constexpr std::size_t kMaxPidDigits = 10;

// A process id as temp_name writes it: decimal digits, no sign or leading zero, within pid_t.
std::optional<long> pid_in(const std::string& digits) {
  if (digits.empty() || digits.size() > kMaxPidDigits || digits[0] == '0') return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const long long pid = std::stoll(digits);
  return pid <= INT_MAX ? std::optional<long>(pid) : std::nullopt;
}

bool random_part(const std::string& s) {
  return s.size() == kRandomDigits && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

fs::path hidden_beside(const fs::path& path, const std::string& suffix) {
  const std::string name = path.filename().string();
  return path.parent_path() / ("." + name.substr(0, NAME_MAX - 1 - suffix.size()) + suffix);
}

fs::path temp_name(const fs::path& target, long pid, const std::string& random) {
  return hidden_beside(target, kPart + std::to_string(pid) + "-" + random);
}

std::optional<long> temp_writer(const std::string& name, const std::string& target_name) {
  const std::size_t at = name.rfind(kPart);
  if (at == std::string::npos || at < 2 || name[0] != '.') return std::nullopt;
  const std::string tail = name.substr(at + kPartSize);
  const std::size_t dash = tail.find('-');
  if (dash == std::string::npos || !random_part(tail.substr(dash + 1))) return std::nullopt;
  const std::optional<long> pid = pid_in(tail.substr(0, dash));
  if (!pid || target_name.empty()) return pid;
  // The target's name as hidden_beside cut it for this suffix.
  const std::size_t suffix = name.size() - at;
  return name.substr(1, at - 1) == target_name.substr(0, NAME_MAX - 1 - suffix) ? pid
                                                                                : std::nullopt;
}

}  // namespace mp
