#include "commands/sequence_folder.h"

#include <fstream>
#include <stdexcept>
#include <system_error>

#include "io/stale_temps.h"

namespace mp {
namespace fs = std::filesystem;
namespace {

constexpr const char* kListing = "frames.json";

// `dir`, made if it is not there; the path to lock the sequence by.
fs::path made_folder(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw std::runtime_error("--out: " + dir.string() + " is not a folder");
  } else if (fs::create_directories(dir, ec); ec) {
    throw std::runtime_error("--out: cannot make the folder " + dir.string() + ": " + ec.message());
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

}  // namespace

SequenceFolder::SequenceFolder(const fs::path& dir, nlohmann::json head, bool resume)
    : dir_(dir),
      lock_(made_folder(dir)),
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
    if (recorded.is_discarded() || !recorded.is_object() || !recorded.contains("parameters"))
      throw std::runtime_error("--resume: " + (dir_ / kListing).string() +
                               " records no sequence's parameters: render into a new folder");
    const std::string difference = first_difference(recorded["parameters"], head_.at("parameters"));
    if (!difference.empty())
      throw std::runtime_error("--resume: " + dir_.string() +
                               " holds a sequence of other parameters (" + difference +
                               "): resume it with the same ones, or choose a new folder");
    keep_frames_on_disk(recorded);
  }
  write_file_atomic(dir_ / kListing, listing(frames_));
}

void SequenceFolder::keep_frames_on_disk(const nlohmann::json& recorded) {
  const int count = head_["parameters"].at("frames").get<int>();
  const nlohmann::json frames = recorded.value("frames", nlohmann::json::array());
  if (!frames.is_array()) return;
  for (const nlohmann::json& f : frames) {
    if (!f.is_object() || !f.contains("frame") || !f["frame"].is_number_integer()) continue;
    const int k = f["frame"].get<int>();
    bool whole = k >= 0 && k < count;
    for (const char* key : {"image", "exr"}) {
      if (!whole || !f.contains(key)) continue;
      // A plain name in the folder: a listing edited to point elsewhere keeps nothing.
      whole = f[key].is_string() && f[key].get<std::string>().find('/') == std::string::npos &&
              regular_file(dir_ / f[key].get<std::string>());
    }
    if (whole && f.contains("image")) frames_[k] = f;
  }
}

std::string SequenceFolder::listing(const std::map<int, nlohmann::json>& frames) const {
  nlohmann::json j = head_;
  j["frames"] = nlohmann::json::array();
  for (const auto& [k, f] : frames) j["frames"].push_back(f);
  return j.dump(2) + "\n";
}

void SequenceFolder::commit_frame(int frame, nlohmann::json entry, StreamedFile& image) {
  entry["frame"] = frame;
  std::map<int, nlohmann::json> after = frames_;
  after[frame] = std::move(entry);
  write_files_atomic({{dir_ / kListing, listing(after)}}, image, StreamedOrder::kFirst);
  frames_ = std::move(after);
}

void SequenceFolder::record_frame(int frame, nlohmann::json entry) {
  entry["frame"] = frame;
  std::map<int, nlohmann::json> after = frames_;
  after[frame] = std::move(entry);
  write_file_atomic(dir_ / kListing, listing(after));
  frames_ = std::move(after);
}

void SequenceFolder::record_run(nlohmann::json run) {
  head_["run"] = std::move(run);
  write_file_atomic(dir_ / kListing, listing(frames_));
}

}  // namespace mp
