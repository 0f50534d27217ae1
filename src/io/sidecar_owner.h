// Whose FILE.json sits beside FILE.png: render replaces a sidecar of its own, not a file of the
// user's that happens to have the name (a project's package.json beside package.png).
#pragma once

#include <filesystem>

namespace mp {

// Throws std::runtime_error with one line where `sidecar` exists and is not mandelpipe's (not a
// JSON object with a "mandelpipe" key, which every sidecar render and F12 write has); returns
// where it does not exist or is one.
void check_sidecar_is_ours(const std::filesystem::path& sidecar);

}  // namespace mp
