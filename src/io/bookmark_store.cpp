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

nlohmann::ordered_json bookmark_entry(const Bookmark& b) {
  return {{"name", b.name},
          {"center", {centre_text(b.view.center_x, b.view), centre_text(b.view.center_y, b.view)}},
          {"span", exact_span_text(b.view.span)},
          {"iters", b.view.max_iter}};
}

// The file's text: its keys in their order, the bookmarks one a line, name first (as
// assets/bookmarks.json has them); dump() throws on text that is not UTF-8.
std::string document_text(const nlohmann::ordered_json& doc) {
  std::string text = "{";
  bool first = true;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    text += (first ? "\n  " : ",\n  ") + nlohmann::json(it.key()).dump() + ": ";
    first = false;
    if (it.key() != "bookmarks" || !it->is_array()) {
      text += it->dump();
      continue;
    }
    text += "[";
    for (std::size_t i = 0; i < it->size(); ++i)
      text += (i ? ",\n    " : "\n    ") + (*it)[i].dump();
    text += it->empty() ? "]" : "\n  ]";
  }
  return text + (first ? "}\n" : "\n}\n");
}

}  // namespace

std::filesystem::path user_bookmarks_path() {
  const std::filesystem::path dir = config_dir();
  return dir.empty() ? dir : dir / "bookmarks.json";
}

BookmarkStore::BookmarkStore(std::filesystem::path file, std::string no_folder)
    : file_(std::move(file)), no_folder_(std::move(no_folder)) {
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
    document_ = text ? nlohmann::ordered_json::parse(*text)
                     : nlohmann::ordered_json{{"bookmarks", nlohmann::ordered_json::array()}};
    if (!document_.at("bookmarks").is_array())
      throw std::runtime_error("bookmarks: \"bookmarks\" is not a list");
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
    text = document_text(document_);
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
    return "bookmark not saved: no configuration folder (" +
           (no_folder_.empty() ? std::string("none given") : no_folder_) + ")";
  if (!reload()) return problem_;
  // The file's other bookmarks and keys stay as they are written; a bookmark of the same name
  // gets the view's fields, keeping its others.
  nlohmann::ordered_json& list = document_["bookmarks"];
  const auto same = std::find_if(list.begin(), list.end(), [&](const nlohmann::ordered_json& x) {
    return x.value("name", std::string()) == b.name;
  });
  if (same != list.end()) {
    const nlohmann::ordered_json entry = bookmark_entry(b);
    for (const auto& [key, value] : entry.items()) (*same)[key] = value;
  } else {
    list.push_back(bookmark_entry(b));
  }
  std::string error = save();
  reload();  // the list is what the file holds, written or not
  return error;
}

std::string BookmarkStore::remove(const std::string& name) {
  if (file_.empty())
    return "bookmark not removed: no configuration folder (" +
           (no_folder_.empty() ? std::string("none given") : no_folder_) + ")";
  if (!reload()) return problem_;
  nlohmann::ordered_json& list = document_["bookmarks"];
  const auto it = std::find_if(list.begin(), list.end(), [&](const nlohmann::ordered_json& x) {
    return x.value("name", std::string()) == name;
  });
  if (it == list.end()) return "no bookmark named '" + name + "'";
  list.erase(it);
  std::string error = save();
  reload();
  return error;
}

}  // namespace mp
