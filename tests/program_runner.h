// Running mandelpipe as a user does, shared by the program tests: the program under test, its
// outputs read back, and a run interrupted by a signal.
#pragma once

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace mp::program {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  int signal = 0;  // the signal that ended the program, if one did
  std::string out, err;
};

// MANDELPIPE_BIN from the environment (the GPU machine's carried copy), else the one built.
inline std::string binary() {
  if (const char* b = std::getenv("MANDELPIPE_BIN")) return b;
  return MANDELPIPE_BIN;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A finished run's exit and the outputs it wrote to `out` and `err`, which are removed.
inline Result result_of(int status, const fs::path& out, const fs::path& err) {
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

// A file's identity and last change: a file not written again keeps both.
struct Stamp {
  ino_t inode;
  timespec mtime;
};
inline Stamp stamp(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return {st.st_ino, st.st_mtim};
}

// A test with a folder of its own, empty at its start and removed at its end, named after the
// test (and this process), in which it runs the program.
class FolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("mp_" + std::string(t->test_suite_name()) + "_" +
                                        std::to_string(getpid()) + "_" + t->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // The shell line `line` run in the folder, its exit and outputs.
  Result run_line(const std::string& line) {
    const std::string cmd = "cd '" + dir_.string() + "' && " + line + " >'" +
                            (dir_ / ".stdout").string() + "' 2>'" + (dir_ / ".stderr").string() +
                            "' </dev/null";
    return result_of(std::system(cmd.c_str()), dir_ / ".stdout", dir_ / ".stderr");
  }

  fs::path dir_;
};

// Runs the shell line `cmd`, sends `sig` once `ready()` has returned and waits for it (killed,
// and a failure, after `limit_s` seconds more); its wait status.
template <class Ready>
int run_signalled_when(const std::string& cmd, Ready ready, int sig, int limit_s) {
  const pid_t pid = fork();
  if (pid == 0) {
    // Not run by a shell as `cmd &`, which would start it with SIGINT ignored.
    ::signal(sig, SIG_DFL);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ready();
  kill(pid, sig);
  int status = 0;
  for (int i = 0; i < 10 * limit_s && waitpid(pid, &status, WNOHANG) == 0; ++i) usleep(100000);
  if (waitpid(pid, &status, WNOHANG) == 0) {
    ADD_FAILURE() << "still running " << limit_s << " s after the signal";
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  return status;
}

// The same, `sig` sent `delay` seconds after the start.
inline int run_signalled(const std::string& cmd, double delay, int sig, int limit_s) {
  return run_signalled_when(
      cmd, [delay] { usleep(static_cast<useconds_t>(delay * 1e6)); }, sig, limit_s);
}

}  // namespace mp::program
