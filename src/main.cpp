#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "app/window_command.h"
#include "cli/options.h"
#include "commands/commands.h"
#include "io/files.h"
#include "io/printable.h"
#include "lab/experiments.h"

namespace {

// Descriptors 0, 1 and 2 that were closed at start, opened on /dev/null: otherwise the next file
// opened (an image being written, the X11 socket) would take one and receive what is meant for
// the terminal. Which were closed (bit k for descriptor k), or -1 if opening failed (then nothing
// is safe to write).
int standard_descriptors_opened() {
  int closed = 0;
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    // The lowest free descriptor, which is this one: those below are open by now.
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened != fd) return -1;
    closed |= 1 << fd;
  }
  return closed;
}

// Standard output that was closed at start: what the program writes there is counted instead of
// sent, so that a run whose output was lost says so, as one whose disk is full does.
class LostOutput : public std::streambuf {
 public:
  LostOutput() : was_(std::cout.rdbuf(this)) {}
  // std::cout outlives main: it gets its own buffer back before this one goes.
  ~LostOutput() override { std::cout.rdbuf(was_); }
  LostOutput(const LostOutput&) = delete;
  LostOutput& operator=(const LostOutput&) = delete;
  std::streamsize lost() const { return lost_; }

 protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) ++lost_;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    lost_ += n;
    return n;
  }

 private:
  std::streambuf* was_;
  std::streamsize lost_ = 0;
};

// One line on stderr, whatever `text` holds (untrusted values, paths and file bytes are echoed).
void say_error(const std::string& text) {
  // One write: the lines of processes failing together (MPI's ranks) stay whole.
  std::cerr << "mandelpipe: " + mp::printable(text) + "\n";
}

// Why standard output lost what was written to it (a full disk, a closed pipe or descriptor), or
// nothing.
std::optional<std::string> stdout_lost(const LostOutput* closed) {
  if (closed && closed->lost() > 0) return "it was closed";
  if (std::cout.flush()) return std::nullopt;
  return std::strerror(errno);
}

// A run whose output was lost has not succeeded, whatever it did; `done`: what it did all the
// same (files written), said in the line.
int checked_stdout(int code, const LostOutput* closed, const char* done = nullptr) {
  const std::optional<std::string> lost = stdout_lost(closed);
  if (!lost) return code;
  say_error("cannot write to standard output: " + *lost +
            (code == 0 && done ? std::string("; ") + done : std::string()));
  return code == 0 ? 2 : code;
}

}  // namespace

int main(int argc, char** argv) {
  const int closed = standard_descriptors_opened();
  if (closed < 0) return 2;
  std::optional<LostOutput> lost;
  if (closed & 2) lost.emplace();
  const LostOutput* stdout_closed = lost ? &*lost : nullptr;
  // A line to standard error in one write, however it is put together: the lines of processes
  // sharing it (MPI's ranks) then stay whole. Every line the program writes there ends in '\n'.
  std::setvbuf(stderr, nullptr, _IOLBF, BUFSIZ);
  mp::install_cleanup_on_signals();
  // render's files would be replaced and the run then fail for its closing line: refused first.
  if ((closed & 2) && argc > 1 && std::string_view(argv[1]) == "render") {
    say_error(
        "standard output is closed: render says there what it wrote (send it to /dev/null to drop "
        "that line)");
    return 2;
  }
  mp::Catalogue catalogue;
  for (std::string_view name : mp::experiment_names()) catalogue.experiments.emplace_back(name);
  const mp::ParseResult parsed = mp::parse_command_line({argv, argv + argc}, catalogue);
  if (!parsed.options) {
    std::cout << parsed.out;
    if (!parsed.err.empty()) say_error(parsed.err);
    return checked_stdout(parsed.exit_code, stdout_closed);
  }
  try {
    return std::visit(
        [&](const auto& o) {
          using O = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<O, mp::WindowOptions>) {
            const int code = checked_stdout(mp::run_window(o), stdout_closed);
            mp::end_as_asked();  // the window quit on a signal, its settings saved: it ends by it
            return code;
          } else if constexpr (std::is_same_v<O, mp::RenderOptions>) {
            return checked_stdout(mp::run_render(o), stdout_closed,
                                  "the render finished and its files are written");
          } else if constexpr (std::is_same_v<O, mp::BenchOptions>) {
            return checked_stdout(mp::run_bench(o), stdout_closed);
          } else {
            return checked_stdout(mp::run_experiment_command(o), stdout_closed);
          }
        },
        *parsed.options);
  } catch (const mp::ExitError& e) {
    // What went to standard output before the error (experiment's prediction) may be lost too.
    const std::optional<std::string> unwritten = stdout_lost(stdout_closed);
    if (e.what()[0] != '\0')  // none: another process (MPI rank 0) said it
      say_error(e.what() + (unwritten ? "; and standard output: " + *unwritten : std::string()));
    return e.code();
  } catch (const std::exception& e) {
    say_error(std::string("error: ") + e.what());
    return 1;
  }
}
