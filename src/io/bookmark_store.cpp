#include "io/bookmark_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/files.h"
#include "io/settings.h"

namespace mp {
namespace {

constexpr std::size_t kMaxNameLength = 200;

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::filesystem::path user_bookmarks_path() {
  const std::filesystem::path dir = config_dir();
  return dir.empty() ? dir : dir / "bookmarks.json";
}

std::string bookmarks_json(const std::vector<Bookmark>& bookmarks) {
  // One bookmark a line, name first, as in assets/bookmarks.json; dump() throws on a name that
  // is not UTF-8.
  std::string text = "{\n  \"bookmarks\": [";
  for (std::size_t i = 0; i < bookmarks.size(); ++i) {
    const Bookmark& b = bookmarks[i];
    nlohmann::ordered_json j = {
        {"name", b.name},
        {"center", {centre_text(b.view.center_x, b.view), centre_text(b.view.center_y, b.view)}},
        {"span", exact_span_text(b.view.span)},
        {"iters", b.view.max_iter}};
    text += (i ? ",\n    " : "\n    ") + j.dump();
  }
  return text + (bookmarks.empty() ? "]\n}\n" : "\n  ]\n}\n");
}

BookmarkStore::BookmarkStore(std::filesystem::path file) : file_(std::move(file)) {
  if (!file_.empty()) reload();
}

bool BookmarkStore::reload() {
  std::string why;
  const std::optional<std::string> text = read_state_file(file_, &why);
  if (!text && !why.empty()) {
    problem_ = why + "; bookmarks are not saved until it is fixed or removed";
    return false;
  }
  try {
    bookmarks_ = text ? parse_bookmarks(*text) : std::vector<Bookmark>{};
  } catch (const std::exception& e) {
    problem_ = "ignoring " + file_.string() + ": " + e.what() +
               "; bookmarks are not saved until it is fixed or removed";
    return false;
  }
  problem_.clear();
  return true;
}

std::string BookmarkStore::save() {
  std::string text;
  try {
    text = bookmarks_json(bookmarks_);
    parse_bookmarks(text);  // never write a file that would be refused when read back
  } catch (const std::exception& e) {
    return std::string("bookmark not saved: ") + e.what();
  }
  try {
    write_state_file(file_, text);
  } catch (const std::exception& e) {
    return std::string("bookmark not saved: ") + e.what();
  }
  return "";
}

std::string BookmarkStore::add(Bookmark b) {
  b.name = trimmed(b.name);
  if (b.name.empty()) return "bookmark not saved: it needs a name";
  if (b.name.size() > kMaxNameLength)
    return "bookmark not saved: names are at most " + std::to_string(kMaxNameLength) + " bytes";
  if (std::any_of(b.name.begin(), b.name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return "bookmark not saved: the name has control characters";
  if (file_.empty())
    return "bookmark not saved: no configuration folder (neither XDG_CONFIG_HOME nor HOME is set)";
  if (!reload()) return problem_;
  const auto same = std::find_if(bookmarks_.begin(), bookmarks_.end(),
                                 [&](const Bookmark& x) { return x.name == b.name; });
  if (same != bookmarks_.end())
    same->view = b.view;
  else
    bookmarks_.push_back(b);
  std::string error = save();
  if (!error.empty()) reload();  // the list stays what the file holds
  return error;
}

std::string BookmarkStore::remove(const std::string& name) {
  if (file_.empty()) return "bookmark not removed: no configuration folder";
  if (!reload()) return problem_;
  const auto it = std::find_if(bookmarks_.begin(), bookmarks_.end(),
                               [&](const Bookmark& x) { return x.name == name; });
  if (it == bookmarks_.end()) return "no bookmark named '" + name + "'";
  bookmarks_.erase(it);
  std::string error = save();
  if (!error.empty()) reload();
  return error;
}

}  // namespace mp
