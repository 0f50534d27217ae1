// Where a capture or a saved table goes: `dir` (or the working folder), a timestamped name that
// is not taken yet.
#pragma once

#include <filesystem>
#include <string>

namespace mp {

std::filesystem::path capture_path(const std::string& dir, const std::string& stem,
                                   const char* ext);

}  // namespace mp
