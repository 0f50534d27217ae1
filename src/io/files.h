// Output files that are either complete or absent: written beside the target under a name no one
// can plant beforehand, then renamed; a set of them (an image and its sidecar) replaces the old
// set whole or not at all.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mp {

// Throws std::runtime_error("cannot write FILE: reason") if the file could not be created
// there; call it before long work so bad paths fail fast.
void check_writable(const std::filesystem::path& path);
void write_file_atomic(const std::filesystem::path& path, const std::string& bytes);
// Several files as one: all are written to temporary files first (each with the mode of the file
// it replaces), then renamed into place in order with SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE held
// off, so an interruption leaves the old set or the new one. The files replaced are kept aside
// until the last rename, so on any failure the old set is back in place and no temporary file is
// left; throws "cannot write FILE: reason".
void write_files_atomic(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// A file too big to hold in memory (a streamed image), written in pieces under the temporary
// name write_files_atomic uses: removed on SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE, or when destroyed
// unless renamed into place by the overload below. Throws "cannot write FILE: reason". Where a
// StreamedFile goes among the files committed with it: last, so that whoever waits for an image
// finds its sidecar there; or first, so that a listing of what is on disk (a zoom sequence's
// frames.json) names only files already in place.
enum class StreamedOrder { kLast, kFirst };

class StreamedFile {
 public:
  explicit StreamedFile(std::filesystem::path target);
  ~StreamedFile();
  StreamedFile(const StreamedFile&) = delete;
  StreamedFile& operator=(const StreamedFile&) = delete;

  std::FILE* stream() const { return stream_; }
  const std::filesystem::path& target() const { return target_; }

 private:
  friend void write_streamed_then(StreamedFile& streamed, const std::function<void()>& then);
  friend void write_files_atomic(
      const std::vector<std::pair<std::filesystem::path, std::string>>& files,
      StreamedFile& streamed, StreamedOrder order);
  // file_: where it goes, target_ through its links (files.cpp, through_links).
  std::filesystem::path target_, file_, tmp_;
  int slot_ = -1;
  std::FILE* stream_ = nullptr;
};
// As above, with `streamed` (written in full by the caller) closed and renamed into place last or
// first.
void write_files_atomic(const std::vector<std::pair<std::filesystem::path, std::string>>& files,
                        StreamedFile& streamed, StreamedOrder order = StreamedOrder::kLast);
// `streamed` renamed into place as above, then `then` run (a record of it appended to a journal),
// with SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE held off until both are done; where `then` throws, the
// file is removed again and the exception goes on.
void write_streamed_then(StreamedFile& streamed, const std::function<void()>& then);
// Held while one output is written, so that two runs writing it at once cannot leave one's image
// beside the other's sidecar: an flock(2) on a hidden file beside it, removed on release (and on
// SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE). Throws "cannot write OUTPUT: another mandelpipe is
// writing it ..." at once when another process holds it, or "cannot write OUTPUT: reason".
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& output);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // The lock file, which a folder's own checks (is it empty?) leave out.
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1, slot_ = -1;
};
// Once, before any writing: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (unless ignored) remove
// the temporary files being written and then end the program as the signal would; SIGXFSZ is
// ignored, so a write over the file size limit fails with EFBIG like any other write error.
void install_cleanup_on_signals();
// For the window, whose loop can end as on Esc (settings saved): from now on the first SIGINT,
// SIGTERM, SIGHUP or SIGPIPE only asks it to, which quit_signal() then says; a second one, or
// SIGQUIT, acts as install_cleanup_on_signals says, for a loop that does not answer.
void ask_to_quit_on_signals();
// The signal that asked the program to quit, or 0.
int quit_signal();
// Where a signal asked the program to quit and it has done so in its own way: ends it as that
// signal would have, so the exit status names it; else returns.
void end_as_asked();
// rgba: width*height*4 bytes, top row first.
std::string encode_png(int width, int height, const std::uint8_t* rgba);
// The sidecar of "dir/name.png" is "dir/name.json", and of "dir/name.PNG" "dir/name.JSON": in the
// image's case, so that a file system that tells the two images apart tells their sidecars apart
// too (one that does not holds one image, and one sidecar, under either name).
std::filesystem::path sidecar_path(const std::filesystem::path& png);

// $XDG_CONFIG_HOME/mandelpipe (or ~/.config/mandelpipe; a relative XDG_CONFIG_HOME is ignored,
// as the XDG spec says), created on demand; empty if neither variable is set or the folder cannot
// be made, and then `why` (where given) says which, in a few words.
std::filesystem::path config_dir(std::string* why = nullptr);

}  // namespace mp
