// Per-user state kept between runs in $XDG_CONFIG_HOME/mandelpipe/settings.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "model/palette.h"

namespace mp {

struct Settings {
  std::optional<int> window_x, window_y;
  int window_width = 1280, window_height = 720;
  std::string palette = "ember";
  ColourParams colour;
  float ui_scale = 1.0f;  // the window's UI size, on top of the display's scale
};

// What the loader accepts, and so what the saver may write: the command line's window sizes,
// window positions a desktop can have, and the panel's colour ranges (the density's in
// model/palette.h).
inline constexpr int kMinWindowSide = 1, kMaxWindowSide = 16384;
inline constexpr int kMaxWindowPosition = 65536;
inline constexpr float kMinUiScale = 0.75f, kMaxUiScale = 2.5f;

// The most a state file is read of: far past what the program writes, and so a file larger
// than it is not one of ours; ImGui's layout grows with the windows it remembers.
inline constexpr std::uintmax_t kMaxStateFileBytes = 1 << 20;
inline constexpr std::uintmax_t kMaxLayoutFileBytes = 4 << 20;

// A state file's text (settings, bookmarks, ImGui's layout): nothing for a missing one; nothing
// and a `warning` for one that is not a regular file (a FIFO would block the reader), is larger
// than `max_bytes` (never read past it) or cannot be read.
std::optional<std::string> read_state_file(const std::filesystem::path& file, std::string* warning,
                                           std::uintmax_t max_bytes = kMaxStateFileBytes);
// Written whole (see write_file_atomic); through symlinks to their final target, a dangling
// link's too, so the link stays; throws "cannot write FILE: ..." for a loop.
void write_state_file(const std::filesystem::path& file, const std::string& text);

// Missing file: defaults. Not a regular file (a FIFO, a folder), unreadable, malformed or out
// of range: defaults, and `warning` says why (the caller then leaves the file alone rather than
// overwrite it). Never blocks: a FIFO is not opened.
Settings load_settings(const std::filesystem::path& file, std::string* warning);
// Clamps every value into what load_settings accepts before writing; keys of the file it does
// not know are kept as they were; a symlinked file is written through the link (its target
// replaced, with its mode), so a dotfiles link stays a link; a symlink loop throws.
void save_settings(const std::filesystem::path& file, const Settings& s);

}  // namespace mp
