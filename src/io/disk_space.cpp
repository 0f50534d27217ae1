#include "io/disk_space.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <stdexcept>
#include <system_error>

namespace mp {
namespace fs = std::filesystem;
namespace {

std::string size_text(std::uint64_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(text, sizeof text, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024));
  else
    std::snprintf(text, sizeof text, "%.0f KiB", b / 1024.0);
  return text;
}

// A folder as a message names it: whole, since "." says little.
fs::path shown(const fs::path& folder) {
  std::error_code ec;
  const fs::path whole = fs::absolute(folder, ec).lexically_normal();
  return ec ? folder : whole.has_filename() ? whole : whole.parent_path();
}

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

}  // namespace

std::optional<Space> space_of(const fs::path& folder) {
  fs::path at = folder.empty() ? fs::path(".") : folder;
  struct stat st {};
  while (::stat(at.c_str(), &st) != 0) {
    const fs::path up = at.parent_path();
    if (at == "." || up == at) return std::nullopt;
    at = up.empty() ? fs::path(".") : up;
  }
  struct statvfs vfs {};
  if (::statvfs(at.c_str(), &vfs) != 0) return std::nullopt;
  // Root may write into the blocks a file system keeps back for it; other users may not.
  const std::uint64_t blocks = ::geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
  return Space{static_cast<std::uint64_t>(st.st_dev), blocks * vfs.f_frsize};
}

void check_room(const std::vector<Need>& needs, const std::string& what, const SpaceOf& space) {
  struct Total {
    fs::path folder;
    std::uint64_t needed = 0, free = 0;
  };
  std::map<std::uint64_t, Total> by_device;
  for (const Need& n : needs) {
    const fs::path folder = folder_of(n.file);
    const std::optional<Space> s = space(folder);
    if (!s) continue;
    Total& t = by_device[s->device];
    if (t.folder.empty()) t = {folder, 0, s->free};
    t.needed += n.bytes;
  }
  for (const auto& [device, t] : by_device)
    if (t.needed > t.free)
      throw std::runtime_error("cannot write " + what + ": up to " + size_text(t.needed) +
                               " needed (an upper bound: as if nothing compressed), more than "
                               "the " +
                               size_text(t.free) + " free in the file system of " +
                               shown(t.folder).string());
}

}  // namespace mp
