// Output files that are either complete or absent: written beside the target, then renamed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace mp {

// Throws std::runtime_error("cannot write FILE: reason") if the file could not be created
// there; call it before long work so bad paths fail fast.
void check_writable(const std::filesystem::path& path);
void write_file_atomic(const std::filesystem::path& path, const std::string& bytes);
// Several files as one: all are written to temporary files first, then renamed into place in
// order with SIGINT/SIGTERM/SIGHUP held off, so an interruption leaves the old set or the new one.
// On failure no temporary file is left and none is renamed; throws "cannot write FILE: reason".
void write_files_atomic(const std::vector<std::pair<std::filesystem::path, std::string>>& files);
// Once, before any writing: SIGINT, SIGTERM and SIGHUP (unless ignored) remove the temporary files
// being written and then end the program as the signal would; SIGXFSZ is ignored, so a write over
// the file size limit fails with EFBIG like any other write error.
void install_cleanup_on_signals();
// rgba: width*height*4 bytes, top row first.
std::string encode_png(int width, int height, const std::uint8_t* rgba);
// The sidecar of "dir/name.png" is "dir/name.json".
std::filesystem::path sidecar_path(const std::filesystem::path& png);

// $XDG_CONFIG_HOME/mandelpipe (or ~/.config/mandelpipe), created on demand; empty if neither
// variable is set or the folder cannot be made.
std::filesystem::path config_dir();

}  // namespace mp
