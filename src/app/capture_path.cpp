#include "app/capture_path.h"

#include <ctime>

namespace mp {

std::filesystem::path capture_path(const std::string& dir, const std::string& stem,
                                   const char* ext) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  const std::filesystem::path folder = dir.empty() ? "." : dir;
  std::filesystem::path p = folder / (stem + "-" + stamp + ext);
  for (int i = 2; std::filesystem::exists(p); ++i)
    p = folder / (stem + "-" + stamp + "-" + std::to_string(i) + ext);
  return p;
}

}  // namespace mp
