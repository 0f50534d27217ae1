#include "commands/sequence_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "io/exr_file.h"
#include "io/printable.h"
#include "io/stale_temps.h"

namespace mp {
namespace fs = std::filesystem;
namespace {

constexpr const char* kListing = "frames.json";
constexpr const char* kJournal = "frames.journal";
// frames.json rewritten with every frame up to this size of its entries (about 350 frames): a
// write of it then costs well under a millisecond.
constexpr std::size_t kWholeListingBytes = 256 << 10;
// Where the frames go in the head's text, as nlohmann::json's dump(2) writes an empty array at
// the top level (keys are sorted, so "frames" is at a fixed place).
constexpr const char* kEmptyFrames = "\n  \"frames\": []";

// `entry` as dump(2) writes it as an element of a top-level array: each line indented 4 more.
std::string element_text(const nlohmann::json& entry) {
  std::string text = "    ";
  for (const char c : entry.dump(2)) {
    text += c;
    if (c == '\n') text += "    ";
  }
  return text;
}

// `dir`, made if it is not there (a resume's must be: a mistyped name starts nothing); the path
// to lock the sequence by.
fs::path made_folder(const fs::path& dir, bool resume) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw std::runtime_error("--out: " + path_text(dir.string()) + " is not a folder");
  } else if (resume) {
    throw std::runtime_error("--resume: " + path_text(dir.string()) +
                             " does not exist: there is no sequence to complete (without "
                             "--resume a new one starts there)");
  } else if (fs::create_directories(dir, ec); ec) {
    throw std::runtime_error("--out: cannot make the folder " + path_text(dir.string()) + ": " +
                             ec.message());
  }
  return dir / kListing;
}

// What is in `dir` besides `lock`: whether anything is, and whether a listing is.
struct Contents {
  bool other = false, listing = false;
};
Contents contents_of(const fs::path& dir, const fs::path& lock) {
  Contents c;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path name = it->path().filename();
    if (name == lock.filename()) continue;
    c.other = true;
    c.listing = c.listing || name == kListing;
  }
  if (ec)
    throw std::runtime_error("--out: cannot read the folder " + dir.string() + ": " + ec.message());
  return c;
}

// The first parameter that differs, as "NAME X there, Y here"; "" when they all agree.
std::string first_difference(const nlohmann::json& there, const nlohmann::json& here) {
  for (const auto& [key, value] : here.items())
    if (!there.contains(key) || there[key] != value)
      return key + " " + (there.contains(key) ? there[key].dump() : "unset") + " there, " +
             value.dump() + " here";
  for (const auto& [key, value] : there.items())
    if (!here.contains(key)) return key + " " + value.dump() + " there, unset here";
  return "";
}

bool regular_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(p, ec));
}

// A frame's file as this program writes it whole: a PNG from its signature to its IEND chunk, an
// EXR that OpenEXR reads whole. A file cut short or emptied (a crash before the data reached the
// disk, an edit) is rendered again.
bool looks_whole(const fs::path& p) {
  if (!regular_file(p)) return false;
  if (p.extension() != ".png") return exr_complete(p);
  std::ifstream in(p, std::ios::binary);
  static constexpr char kSignature[] = "\x89PNG\r\n\x1a\n";
  static constexpr char kEnd[] = "\0\0\0\0IEND\xae\x42\x60\x82";
  std::string head(sizeof kSignature - 1, '\0'), tail(sizeof kEnd - 1, '\0');
  return in.read(head.data(), static_cast<std::streamsize>(head.size())) &&
         head == std::string(kSignature, head.size()) &&
         in.seekg(-static_cast<std::streamoff>(tail.size()), std::ios::end) &&
         in.read(tail.data(), static_cast<std::streamsize>(tail.size())) &&
         tail == std::string(kEnd, tail.size());
}

}  // namespace

SequenceFolder::SequenceFolder(const fs::path& dir, nlohmann::json head, bool resume)
    : dir_(dir),
      lock_(made_folder(dir, resume)),
      stale_removed_(remove_stale_temps_in(dir)),
      head_(std::move(head)) {
  const Contents c = contents_of(dir_, lock_.path());
  if (!resume && c.listing)
    throw std::runtime_error("--out: " + dir_.string() +
                             " holds a zoom sequence: --resume completes it, or choose a new or "
                             "empty folder");
  if (!resume && c.other)
    throw std::runtime_error("--out: " + dir_.string() +
                             " is not empty: a zoom sequence goes into a new or empty folder");
  if (resume && c.other && !c.listing)
    throw std::runtime_error("--resume: " + dir_.string() +
                             " holds no frames.json: it is not a zoom sequence to resume");
  if (c.listing) {
    std::ifstream in(dir_ / kListing);
    const nlohmann::json recorded = nlohmann::json::parse(in, nullptr, false);
    if (recorded.is_discarded())
      throw std::runtime_error("--resume: " + (dir_ / kListing).string() +
                               " is not valid JSON (damaged): render into a new folder");
    if (!recorded.is_object() || !recorded.contains("parameters"))
      throw std::runtime_error("--resume: " + (dir_ / kListing).string() +
                               " records no sequence's parameters: render into a new folder");
    const std::string difference = first_difference(recorded["parameters"], head_.at("parameters"));
    if (!difference.empty())
      throw std::runtime_error("--resume: " + dir_.string() +
                               " holds a sequence of other parameters (" + difference +
                               "): resume it with the same ones, or choose a new folder");
    keep_frames_on_disk(recorded);
    // The runs before this one keep their records (a resume that renders nothing too): this
    // run's goes beside them once it ends.
    nlohmann::json earlier = recorded.value("earlier_runs", nlohmann::json::array());
    if (recorded.contains("run")) {
      nlohmann::json run = recorded["run"];
      if (recorded.contains("run_started")) run["run_started"] = recorded["run_started"];
      earlier.push_back(std::move(run));
    } else if (recorded.contains("run_started")) {
      // A run stopped before its end (a signal, a kill) wrote no totals; its start is kept.
      earlier.push_back({{"run_started", recorded["run_started"]},
                         {"ended", "before its end: stopped, no totals recorded"}});
    }
    if (earlier.is_array() && !earlier.empty()) head_["earlier_runs"] = std::move(earlier);
  }
  // Its frames are in frames.json now (a journal only outlives frames.json's rewrite by a crash).
  write_whole_listing();
}

SequenceFolder::~SequenceFolder() {
  if (journal_fd_ >= 0) ::close(journal_fd_);
}

void SequenceFolder::keep_frames_on_disk(const nlohmann::json& recorded) {
  const int count = head_["parameters"].at("frames").get<int>();
  nlohmann::json frames = recorded.value("frames", nlohmann::json::array());
  if (!frames.is_array()) frames = nlohmann::json::array();
  // The journal's frames after frames.json's (a later entry of a frame wins); a line cut short
  // by a crash does not parse and is left out.
  std::ifstream journal(dir_ / kJournal);
  for (std::string line; std::getline(journal, line);) {
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (!entry.is_discarded()) frames.push_back(std::move(entry));
  }
  for (const nlohmann::json& f : frames) {
    if (!f.is_object() || !f.contains("frame") || !f["frame"].is_number_integer()) continue;
    const int k = f["frame"].get<int>();
    bool whole = k >= 0 && k < count;
    for (const char* key : {"image", "exr"}) {
      if (!whole || !f.contains(key)) continue;
      // A plain name in the folder: a listing edited to point elsewhere keeps nothing.
      whole = f[key].is_string() && f[key].get<std::string>().find('/') == std::string::npos &&
              looks_whole(dir_ / f[key].get<std::string>());
    }
    if (whole && f.contains("image")) listed(k, element_text(f));
  }
}

bool SequenceFolder::listing_due() const {
  return listing_bytes_ <= kWholeListingBytes ||
         static_cast<std::size_t>(journaled_ + 1) * 8 >= frames_.size();
}

void SequenceFolder::listed(int frame, std::string text) {
  const auto it = frames_.find(frame);
  if (it != frames_.end()) listing_bytes_ -= it->second.size();
  listing_bytes_ += text.size();
  frames_[frame] = std::move(text);
}

void SequenceFolder::listing_written() {
  ++listing_writes_;
  // Where the journal cannot be emptied, its lines only repeat entries frames.json has.
  if (journaled_ > 0) {
    const int ignored = ::ftruncate(journal_fd_, 0);
    (void)ignored;
  }
  journaled_ = 0;
}

std::string SequenceFolder::listing(int extra, const std::string& entry) const {
  nlohmann::json j = head_;
  j["frames"] = nlohmann::json::array();
  std::string head = j.dump(2) + "\n";
  const std::size_t at = head.find(kEmptyFrames);
  if (at == std::string::npos) throw std::logic_error("frames.json's head has no frames");
  std::size_t bytes = head.size() + 8;
  for (const auto& [k, text] : frames_) bytes += text.size() + 2;
  std::string out;
  out.reserve(bytes + entry.size() + 2);
  out.append(head, 0, at + std::strlen(kEmptyFrames) - 1);
  const auto it = extra < 0 ? frames_.end() : frames_.lower_bound(extra);
  bool first = true;
  const auto element = [&](const std::string& text) {
    out += first ? "\n" : ",\n";
    out += text;
    first = false;
  };
  for (auto f = frames_.begin(); f != frames_.end(); ++f) {
    if (f == it) element(entry);
    if (f->first != extra) element(f->second);
  }
  if (extra >= 0 && it == frames_.end()) element(entry);
  out += first ? "]" : "\n  ]";
  out.append(head, at + std::strlen(kEmptyFrames), std::string::npos);
  return out;
}

void SequenceFolder::append_to_journal(const nlohmann::json& entry) {
  const fs::path path = dir_ / kJournal;
  if (journal_fd_ < 0) {
    journal_fd_ =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (journal_fd_ < 0)
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  // One write a line, so that a line is there whole or, cut short, does not parse.
  const std::string line = entry.dump() + "\n";
  const ssize_t n = ::write(journal_fd_, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("cannot write " + path.string() + ": " +
                             std::strerror(n < 0 ? errno : ENOSPC));
  ++journal_lines_;
  ++journaled_;
}

void SequenceFolder::commit_frame(int frame, nlohmann::json entry, StreamedFile& image) {
  add(frame, std::move(entry), &image);
}

void SequenceFolder::record_frame(int frame, nlohmann::json entry) {
  add(frame, std::move(entry), nullptr);
}

void SequenceFolder::add(int frame, nlohmann::json entry, StreamedFile* image) {
  entry["frame"] = frame;
  std::string text = element_text(entry);
  if (listing_due()) {
    const std::pair<fs::path, std::string> json{dir_ / kListing, listing(frame, text)};
    if (image)
      write_files_atomic({json}, *image, StreamedOrder::kFirst);
    else
      write_files_atomic({json});
    listing_written();
  } else if (image) {
    write_streamed_then(*image, [&] { append_to_journal(entry); });
  } else {
    append_to_journal(entry);
  }
  listed(frame, std::move(text));
}

void SequenceFolder::record_run(nlohmann::json run) {
  run["frames_json"] = {{"writes", listing_writes_ + 1}, {"journal_lines", journal_lines_}};
  head_["run"] = std::move(run);
  write_whole_listing();
}

void SequenceFolder::write_whole_listing() {
  write_file_atomic(dir_ / kListing, listing());
  listing_written();
  std::error_code ec;
  fs::remove(dir_ / kJournal, ec);
}

}  // namespace mp
