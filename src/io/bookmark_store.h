// The user's own bookmarks, kept in $XDG_CONFIG_HOME/mandelpipe/bookmarks.json in the format of
// the built-in ones (assets/bookmarks.json). A file that cannot be read or parsed is reported
// and left as it is: saving is refused until the user fixes or removes it. A save changes only
// the bookmark it adds, replaces or removes: the rest of the file is kept as written.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/bookmarks.h"

namespace mp {

// The file in config_dir(), or an empty path where there is no configuration folder.
std::filesystem::path user_bookmarks_path();


class BookmarkStore {
 public:
  // Reads `file` (empty: nowhere to keep bookmarks, for the reason `no_folder`; a missing file:
  // none yet).
  explicit BookmarkStore(std::filesystem::path file, std::string no_folder = "");

  const std::vector<Bookmark>& bookmarks() const { return bookmarks_; }
  // Why the file was not used ("" when it was, or is missing): one line for the panel.
  const std::string& problem() const { return problem_; }
  const std::filesystem::path& file() const { return file_; }

  // Both re-read the file first, so that bookmarks another window saved meanwhile are kept;
  // "" on success, otherwise one line saying why nothing was written.
  // A bookmark of the same name is replaced; the name is trimmed and must not be empty.
  std::string add(Bookmark b);
  std::string remove(const std::string& name);

 private:
  bool reload();  // false (and problem_ set) when the file is unusable
  std::string save();

  std::filesystem::path file_;
  std::string no_folder_;
  std::vector<Bookmark> bookmarks_;
  // The file as read: a save edits it, so that what the view does not hold (other keys, a
  // bookmark's notes, a centre's digits past its span's need) stays as the user wrote it.
  nlohmann::ordered_json document_;
  std::string problem_;
};

}  // namespace mp
