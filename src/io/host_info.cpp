#include "io/host_info.h"

#include <ctime>
#include <fstream>

namespace mp {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    // "model name\t: AMD EPYC 9654 96-Core Processor"; other architectures name it otherwise.
    if (line.rfind("model name", 0) != 0 && line.rfind("Model", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t first = line.find_first_not_of(" \t", colon + 1);
    if (first != std::string::npos) return line.substr(first);
  }
  return "unknown";
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace mp
