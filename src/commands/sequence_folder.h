// A zoom sequence's folder while a run writes it: locked against other runs, and its frames.json
// with frames.journal listing exactly the frames on disk, so that an interrupted sequence is
// whole as far as it went and `--resume` can finish it. frames.json is rewritten with each frame
// while it is small; past that a frame's entry is appended to frames.journal, a line each, and
// frames.json rewritten only once the journal holds an eighth of all the frames, so that
// writing the listing costs a bounded multiple of its size over the whole run instead of growing
// with the square of the frames. At the end frames.json lists them all and the journal is gone.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/files.h"

namespace mp {

class SequenceFolder {
 public:
  // Makes `dir` if need be, locks it, and writes frames.json listing the frames kept: none for a
  // new sequence (the folder must be empty), or with `resume` those frames.json and the journal
  // list whose files are all there and whole (a PNG to its end, an EXR with its magic number),
  // once its recorded "parameters" equal `head`'s. `head` is frames.json without its "frames".
  // Throws std::runtime_error with one line on any refusal or failure.
  SequenceFolder(const std::filesystem::path& dir, nlohmann::json head, bool resume);
  ~SequenceFolder();
  SequenceFolder(const SequenceFolder&) = delete;
  SequenceFolder& operator=(const SequenceFolder&) = delete;

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
  // frames.json rewritten with `run` (a run's figures) beside its frames, as "run", with how
  // often this run wrote frames.json and the journal in it; the journal removed.
  void record_run(nlohmann::json run);

 private:
  // frames.json's text with `extra` (a frame and its entry, unless it is -1) among the frames.
  std::string listing(int extra = -1, const std::string& entry = {}) const;
  void keep_frames_on_disk(const nlohmann::json& recorded);
  // Whether the next frame rewrites frames.json (else it goes to the journal).
  bool listing_due() const;
  // `frame` kept with `text`, its entry in the listing.
  void listed(int frame, std::string text);
  // frames.json was written (this run's count), listing what the journal held: it is emptied.
  void listing_written();
  // `frame` listed with `entry`, in frames.json or the journal, after `image` (where given) is
  // renamed into place; on failure neither changes.
  void add(int frame, nlohmann::json entry, StreamedFile* image);
  // frames.json written with every frame kept, and the journal removed.
  void write_whole_listing();
  // `entry` appended to the journal as one line; throws "cannot write FILE: reason".
  void append_to_journal(const nlohmann::json& entry);

  std::filesystem::path dir_;
  OutputLock lock_;
  std::vector<std::filesystem::path> stale_removed_;
  nlohmann::json head_;
  // By frame number, each entry as frames.json lists it, in its text there: made once, so that a
  // frame's rewrite of the listing copies bytes instead of serialising every frame again.
  std::map<int, std::string> frames_;
  std::size_t listing_bytes_ = 0;  // the entries' texts, summed
  int journaled_ = 0;              // frames in the journal, not yet in frames.json
  int journal_fd_ = -1;            // frames.journal, open for appending once a frame goes there
  int listing_writes_ = 0, journal_lines_ = 0;  // this run's
};

}  // namespace mp
