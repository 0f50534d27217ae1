// A zoom sequence's folder while a run writes it: locked against other runs, and its frames.json
// rewritten after each frame to list exactly the frames on disk, so that an interrupted sequence
// is whole as far as it went and `--resume` can finish it.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/files.h"

namespace mp {

class SequenceFolder {
 public:
  // Makes `dir` if need be, locks it, and writes frames.json listing the frames kept: none for a
  // new sequence (the folder must be empty), or with `resume` those frames.json lists whose files
  // are all there, once its recorded "parameters" equal `head`'s. `head` is frames.json without
  // its "frames". Throws std::runtime_error with one line on any refusal or failure.
  SequenceFolder(const std::filesystem::path& dir, nlohmann::json head, bool resume);

  bool has(int frame) const { return frames_.count(frame) != 0; }
  // The temporary files that runs stopped without a chance to clean up had left in the folder,
  // removed once it was locked (stale_temps.h).
  const std::vector<std::filesystem::path>& stale_removed() const { return stale_removed_; }
  int kept() const { return static_cast<int>(frames_.size()); }
  // `image` (written in full) renamed into place, then frames.json listing it with `entry`; on
  // failure neither changes. Throws "cannot write FILE: reason".
  void commit_frame(int frame, nlohmann::json entry, StreamedFile& image);
  // A frame another process (an MPI rank) renamed into place: frames.json rewritten to list it
  // with `entry`. Throws as commit_frame.
  void record_frame(int frame, nlohmann::json entry);
  // frames.json rewritten with `run` (a run's figures) beside its frames, as "run".
  void record_run(nlohmann::json run);

 private:
  std::string listing(const std::map<int, nlohmann::json>& frames) const;
  void keep_frames_on_disk(const nlohmann::json& recorded);

  std::filesystem::path dir_;
  OutputLock lock_;
  std::vector<std::filesystem::path> stale_removed_;
  nlohmann::json head_;
  std::map<int, nlohmann::json> frames_;  // by frame number, each as frames.json lists it
};

}  // namespace mp
