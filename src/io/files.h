// Output files that are either complete or absent: written beside the target, then renamed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mp {

// Throws std::runtime_error("cannot write FILE: reason") if the file could not be created
// there; call it before long work so bad paths fail fast.
void check_writable(const std::filesystem::path& path);
void write_file_atomic(const std::filesystem::path& path, const std::string& bytes);
// rgba: width*height*4 bytes, top row first.
std::string encode_png(int width, int height, const std::uint8_t* rgba);
// The sidecar of "dir/name.png" is "dir/name.json".
std::filesystem::path sidecar_path(const std::filesystem::path& png);

// $XDG_CONFIG_HOME/mandelpipe (or ~/.config/mandelpipe), created on demand; empty if neither
// variable is set or the folder cannot be made.
std::filesystem::path config_dir();

}  // namespace mp
