#include "io/stale_temps.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <system_error>

#include "io/temp_names.h"

namespace mp {
namespace fs = std::filesystem;
namespace {

// EPERM: a process of another user's, which is running.
bool running(long pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Removes the files of `folder` (empty: the working folder) whose names are temporary files of
// `target_name` (of any file where it is empty) written by a process that has ended; appends
// them to `removed` as `folder`/NAME.
void remove_in(const fs::path& folder, const std::string& target_name,
               std::vector<fs::path>& removed) {
  std::error_code ec;
  for (fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec), end;
       !ec && it != end; it.increment(ec)) {
    const fs::path name = it->path().filename();
    const std::optional<long> writer = temp_writer(name.string(), target_name);
    if (!writer || running(*writer)) continue;
    struct stat st {};
    const fs::path p = folder / name;
    if (::lstat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(p.c_str()) == 0)
      removed.push_back(p);
  }
}

}  // namespace

std::vector<fs::path> remove_stale_temps(const std::vector<fs::path>& outputs) {
  std::vector<fs::path> removed;
  for (const fs::path& out : outputs)
    remove_in(out.parent_path(), out.filename().string(), removed);
  return removed;
}

std::vector<fs::path> remove_stale_temps_in(const fs::path& folder) {
  std::vector<fs::path> removed;
  remove_in(folder, "", removed);
  return removed;
}

}  // namespace mp
