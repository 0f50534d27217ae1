#include "io/files.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stb_image_write.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "io/temp_names.h"

namespace mp {
namespace fs = std::filesystem;
namespace {

// The temporary files being written, for the signal handler to remove. This is the one
// process-wide state because a handler can reach nothing else, and it is fixed-size char arrays
// with atomic states because a handler may not allocate or lock.
constexpr int kTempSlots = 64;  // render keeps a few images (and their EXRs) open at once
enum SlotState : int { kFree, kFilling, kInUse };
struct TempSlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these");
TempSlot g_temps[kTempSlots];
// Renames in progress, and a signal that arrived during one, to be acted on once they finish.
std::atomic<int> g_committing{0};
std::atomic<int> g_deferred_signal{0};
// Whether SIGINT, SIGTERM and SIGHUP ask the program to quit, and the one that did.
std::atomic<bool> g_ask_to_quit{false};
std::atomic<int> g_quit_signal{0};

// The slot now naming `tmp`, or -1 if none is free (the file is then not removed on a signal).
int register_temp(const fs::path& tmp) {
  const std::string& s = tmp.native();
  if (s.size() >= PATH_MAX) return -1;  // too long for open(2) as well
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = kFree;
    if (!g_temps[i].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_temps[i].path, s.c_str(), s.size() + 1);
    g_temps[i].state.store(kInUse);
    return i;
  }
  return -1;
}

void forget_temp(int slot) {
  if (slot >= 0) g_temps[slot].state.store(kFree);
}

// Ends the program as `sig` does by default: delivered as the handler (or the caller) returns,
// so that the exit status names the signal.
void die_by(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

extern "C" void remove_temps_and_die(int sig) {
  int none = 0;
  if (sig != SIGQUIT && g_ask_to_quit.load() && g_quit_signal.compare_exchange_strong(none, sig))
    return;  // the program's loop ends and quits in its own way
  // A SIGPIPE comes with each write to the closed pipe, not from a person: a loop quitting in its
  // own way goes on (its writes fail) and still ends by the signal that asked it.
  if (sig == SIGPIPE && g_ask_to_quit.load()) return;
  if (g_committing.load() > 0) {
    g_deferred_signal.store(sig);  // acted on when the renames finish, so the set stays whole
    return;
  }
  // The message below to a closed pipe must not end the program by SIGPIPE instead of `sig`.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  bool removed = false;
  for (TempSlot& t : g_temps)
    if (t.state.load() == kInUse) removed |= ::unlink(t.path) == 0;
  // Only where there were some: a pipe closed after the files were written (`| true`) ends the
  // program by SIGPIPE at its last line, with every file whole.
  static const char kRemoved[] = "mandelpipe: stopped by a signal; unfinished files removed\n";
  static const char kNone[] = "mandelpipe: stopped by a signal; no file was being written\n";
  ssize_t ignored = removed ? ::write(STDERR_FILENO, kRemoved, sizeof kRemoved - 1)
                            : ::write(STDERR_FILENO, kNone, sizeof kNone - 1);
  (void)ignored;
  die_by(sig);
}

// Renames done with the handler holding a signal back until the last one. A process-wide flag
// rather than sigprocmask(), which is per thread: another thread (CUDA, GL, render workers)
// would take the signal instead.
class CommitSection {
 public:
  CommitSection() { g_committing.fetch_add(1); }
  ~CommitSection() {
    if (g_committing.fetch_sub(1) == 1)
      if (const int sig = g_deferred_signal.exchange(0)) raise(sig);
  }
  CommitSection(const CommitSection&) = delete;
  CommitSection& operator=(const CommitSection&) = delete;
};

// 16 hex digits from the kernel's random source, so that no one can plant a file or link at a
// name made with it beforehand; "" if there are none.
std::string random_hex() {
  std::uint64_t r = 0;
  if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) return "";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
  return hex;
}

// Tries at a new random name before giving up; a clash is one in 2^64 unless names are planted.
constexpr int kNameTries = 8;

[[noreturn]] void fail(const fs::path& path, const std::string& reason) {
  throw std::runtime_error("cannot write " + path.string() + ": " + reason);
}

struct Temp {
  fs::path target, tmp;
  int slot;
};

// The file a path names through its links, followed as open(2) follows them (a relative link
// from its own folder), so that an output given as a link replaces the file it names and keeps
// the link, as `cp` and the shell's `>` do. A loop is left to the write to report.
fs::path through_links(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    const fs::path to = fs::read_symlink(path, ec);
    if (ec) return path;
    path = to.is_absolute() ? to : path.parent_path() / to;
  }
  return path;
}

// A new file beside `target` under a hidden random name that carries this process's id (for a
// later run to tell it stale once the process is gone), registered for removal on a signal,
// with the permission bits of the file it will replace: created by this call (O_EXCL,
// O_NOFOLLOW), never a file or link that was there. Its descriptor; throws naming `target`.
int create_temp(const fs::path& output, Temp& temp) {
  const fs::path target = through_links(output);
  struct stat old {};
  const bool replaces = ::stat(target.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  int err = EEXIST;
  for (int i = 0; i < kNameTries && err == EEXIST; ++i) {
    const std::string random = random_hex();
    if (random.empty()) {
      err = errno;
      fail(target, std::string("no random name: ") + std::strerror(err));
    }
    temp = {target, temp_name(target, ::getpid(), random), -1};
    // Registered before it exists, so a signal right after open(2) still removes it.
    temp.slot = register_temp(temp.tmp);
    const int fd =
        ::open(temp.tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      if (!replaces || ::fchmod(fd, old.st_mode & 0777) == 0) return fd;
      err = errno;
      ::close(fd);
      ::unlink(temp.tmp.c_str());
      forget_temp(temp.slot);
      fail(target, std::string("cannot give it the old file's mode: ") + std::strerror(err));
    }
    err = errno;
    forget_temp(temp.slot);
  }
  fail(target, std::strerror(err));
}

// Writes all of `bytes` and closes fd; 0, or the errno that stopped it.
int write_and_close(int fd, const std::string& bytes) {
  int err = 0;
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

// Removes the temporary files not yet renamed.
void discard(const std::vector<Temp>& temps) {
  for (const Temp& t : temps) {
    ::unlink(t.tmp.c_str());
    forget_temp(t.slot);
  }
}

}  // namespace

void install_cleanup_on_signals() {
  // SIGPIPE too: a reader of the output that went away (`| head`) ends the run as SIGTERM would.
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // e.g. nohup: the caller wants the signal ignored
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_die;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
  signal(SIGXFSZ, SIG_IGN);
}

void ask_to_quit_on_signals() {
  g_ask_to_quit.store(true);
}

int quit_signal() {
  return g_quit_signal.load();
}

void end_as_asked() {
  if (const int sig = g_quit_signal.load()) die_by(sig);
}

void check_writable(const fs::path& path) {
  if (path.empty()) throw std::runtime_error("cannot write '': empty file name");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    // A file where a folder should be is named as such, not as a folder that is missing.
    for (fs::path p = dir; p.has_relative_path(); p = p.parent_path())
      if (fs::exists(p, ec) && !fs::is_directory(p, ec))
        fail(path, p.string() + " is not a folder");
    fail(path, "folder " + dir.string() + " does not exist");
  }
  if (fs::is_directory(path, ec)) fail(path, "it is a folder");
  // Create (and remove) a temporary file as the real write will: a permission check alone passes
  // for root on read-only file systems.
  Temp probe;
  ::close(create_temp(path, probe));
  discard({probe});
}

void write_file_atomic(const fs::path& path, const std::string& bytes) {
  write_files_atomic({{path, bytes}});
}

namespace {

// The strings under their temporary names; on failure none is left and this throws.
std::vector<Temp> write_temps(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<Temp> temps;
  for (const auto& [path, bytes] : files) {
    Temp temp;
    int fd = -1;
    try {
      fd = create_temp(path, temp);
    } catch (const std::runtime_error&) {
      discard(temps);
      throw;
    }
    temps.push_back(temp);
    if (const int err = write_and_close(fd, bytes)) {
      discard(temps);
      fail(path, std::strerror(err));
    }
  }
  return temps;
}

// `target` kept under a new hidden name beside it: a second hard link, or the file itself moved
// there where the file system has no hard links (or refuses one to a file of another user's).
// The name, or "" with errno set.
fs::path keep_aside(const fs::path& target) {
  for (int i = 0; i < kNameTries; ++i) {
    const std::string random = random_hex();
    if (random.empty()) return {};
    const fs::path kept = hidden_beside(target, ".old-" + random);
    if (::link(target.c_str(), kept.c_str()) == 0) return kept;
    if (errno == EEXIST) continue;
    if (::rename(target.c_str(), kept.c_str()) == 0) return kept;
    return {};
  }
  errno = EEXIST;
  return {};
}

// Renames the written files into place in order, all or none. Where there are several, each file
// they replace is kept aside first, so that a failure at any step puts the old set back whole.
void commit(const std::vector<Temp>& temps) {
  const CommitSection section;
  std::vector<fs::path> kept(temps.size());
  std::size_t placed = 0;
  // Puts the old files back, removes the new ones, and throws `reason` for `target`.
  auto undo = [&](const fs::path& target, const std::string& reason) {
    std::string also;
    for (std::size_t i = 0; i < temps.size(); ++i) {
      const char* path = temps[i].target.c_str();
      if (!kept[i].empty()) {
        if (::rename(kept[i].c_str(), path) != 0)
          also += "; the old " + temps[i].target.string() + " is kept as " + kept[i].string();
        ::unlink(kept[i].c_str());  // a link to the file left in place: rename(2) did nothing
      } else if (i < placed) {
        ::unlink(path);  // there was none before
      }
    }
    discard({temps.begin() + static_cast<std::ptrdiff_t>(placed), temps.end()});
    fail(target, reason + also);
  };
  if (temps.size() > 1)
    for (std::size_t i = 0; i < temps.size(); ++i) {
      struct stat st {};
      if (::lstat(temps[i].target.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
      kept[i] = keep_aside(temps[i].target);
      if (kept[i].empty()) undo(temps[i].target, std::strerror(errno));
    }
  for (; placed < temps.size(); ++placed) {
    if (::rename(temps[placed].tmp.c_str(), temps[placed].target.c_str()) != 0)
      undo(temps[placed].target, std::strerror(errno));
    forget_temp(temps[placed].slot);
  }
  for (const fs::path& k : kept)
    if (!k.empty()) ::unlink(k.c_str());
}

}  // namespace

void write_files_atomic(const std::vector<std::pair<fs::path, std::string>>& files) {
  commit(write_temps(files));
}

StreamedFile::StreamedFile(fs::path target) : target_(std::move(target)) {
  Temp temp;
  const int fd = create_temp(target_, temp);
  file_ = temp.target;
  tmp_ = temp.tmp;
  slot_ = temp.slot;
  stream_ = ::fdopen(fd, "wb");
  if (!stream_) {
    const int err = errno;
    ::close(fd);
    discard({{file_, tmp_, slot_}});
    fail(target_, std::strerror(err));
  }
}

StreamedFile::~StreamedFile() {
  if (stream_) std::fclose(stream_);
  if (!tmp_.empty()) discard({{file_, tmp_, slot_}});
}

void write_files_atomic(const std::vector<std::pair<fs::path, std::string>>& files,
                        StreamedFile& streamed, StreamedOrder order) {
  std::vector<Temp> temps = write_temps(files);
  errno = 0;
  int err = std::fflush(streamed.stream_) != 0 || std::ferror(streamed.stream_)
                ? (errno ? errno : EIO)
                : 0;
  if (std::fclose(streamed.stream_) != 0 && err == 0) err = errno ? errno : EIO;
  streamed.stream_ = nullptr;
  if (err) {
    discard(temps);
    fail(streamed.target_, std::strerror(err));  // its own temporary file goes with it
  }
  temps.insert(order == StreamedOrder::kFirst ? temps.begin() : temps.end(),
               {streamed.file_, streamed.tmp_, streamed.slot_});
  streamed.tmp_.clear();  // commit() renames or removes it now
  commit(temps);
}

void write_streamed_then(StreamedFile& streamed, const std::function<void()>& then) {
  const CommitSection section;
  write_files_atomic({}, streamed);
  try {
    then();
  } catch (...) {
    ::unlink(streamed.file_.c_str());
    throw;
  }
}

OutputLock::OutputLock(const fs::path& output) : path_(hidden_beside(output, ".lock")) {
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0) {
      const int err = errno;
      fail(output, "cannot make its lock " + path_.string() + ": " + std::strerror(err));
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      if (err == EWOULDBLOCK)
        fail(output, "another mandelpipe is writing it (try again once it has finished)");
      fail(output, "cannot lock " + path_.string() + ": " + std::strerror(err));
    }
    // The lock counts only on the file that is there now: a holder removes it before letting go,
    // and a run that opened it before that then holds a lock on a file no one else can find.
    struct stat held {
    }, there{};
    if (::fstat(fd_, &held) == 0 && ::lstat(path_.c_str(), &there) == 0 &&
        held.st_dev == there.st_dev && held.st_ino == there.st_ino)
      break;
    ::close(fd_);
  }
  slot_ = register_temp(path_);  // removed on a signal too
}

OutputLock::~OutputLock() {
  ::unlink(path_.c_str());
  forget_temp(slot_);
  ::close(fd_);
}

std::string encode_png(int width, int height, const std::uint8_t* rgba) {
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(sink, &out, width, height, 4, rgba, width * 4))
    throw std::runtime_error("PNG encoding failed");
  return out;
}

fs::path sidecar_path(const fs::path& png) {
  fs::path p = png;
  return p.replace_extension(png.extension() == ".PNG" ? ".JSON" : ".json");
}

fs::path config_dir(std::string* why) {
  fs::path base;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x && fs::path(x).is_absolute())
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = fs::path(h) / ".config";
  if (base.empty()) {
    if (why) *why = "neither XDG_CONFIG_HOME (absolute) nor HOME is set";
    return {};
  }
  std::error_code ec;
  fs::create_directories(base / "mandelpipe", ec);
  if (!ec) return base / "mandelpipe";
  if (why) *why = "cannot make " + (base / "mandelpipe").string() + ": " + ec.message();
  return {};
}

}  // namespace mp
