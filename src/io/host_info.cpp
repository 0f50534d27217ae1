#include "io/host_info.h"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>

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

double process_age_ms(std::chrono::steady_clock::time_point t) {
  std::ifstream in("/proc/self/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command's name (in parentheses, which may hold anything): the state is the
  // third field, the start time (ticks after boot) the twenty-second.
  const std::size_t close = stat.rfind(')');
  const long ticks = sysconf(_SC_CLK_TCK);
  timespec boot{};
  if (close == std::string::npos || ticks <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
    return -1;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i < 22 && fields >> field;) ++i;
  unsigned long long start = 0;
  if (!(fields >> start)) return -1;
  const double now_ms = boot.tv_sec * 1e3 + boot.tv_nsec / 1e6;
  const double age_now = now_ms - static_cast<double>(start) * 1e3 / static_cast<double>(ticks);
  return age_now -
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace mp
