#include "io/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mp {
namespace {
namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("mp_files_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(Files, AtomicWriteLeavesOnlyTheFile) {
  const fs::path d = temp_dir();
  write_file_atomic(d / "a.txt", "hello");
  std::ifstream in(d / "a.txt");
  std::string s;
  in >> s;
  EXPECT_EQ(s, "hello");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(d)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1);
  fs::remove_all(d);
}

TEST(Files, UnwritablePlacesFailBeforeAnyWork) {
  EXPECT_THROW(check_writable("/nonexistent-dir/x.png"), std::runtime_error);
  const fs::path d = temp_dir();
  EXPECT_THROW(check_writable(d), std::runtime_error);  // a folder, not a file
  EXPECT_NO_THROW(check_writable(d / "ok.png"));
  EXPECT_FALSE(fs::exists(d / "ok.png"));
  EXPECT_THROW(write_file_atomic("/nonexistent-dir/x.png", "x"), std::runtime_error);
  fs::remove_all(d);
}

// The message a check_writable() failure gives, or "" when it passes.
std::string writable_error(const fs::path& p) {
  try {
    check_writable(p);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Files, AFileWhereAFolderShouldBeIsNamedAsSuch) {
  const fs::path d = temp_dir();
  std::ofstream(d / "plain.txt") << "x";
  for (const fs::path& p : {d / "plain.txt" / "x.png", d / "plain.txt" / "sub" / "x.png"}) {
    const std::string e = writable_error(p);
    EXPECT_NE(e.find((d / "plain.txt").string() + " is not a folder"), std::string::npos) << e;
    EXPECT_EQ(e.find("does not exist"), std::string::npos) << e;
  }
  EXPECT_NE(writable_error(d / "missing" / "x.png")
                .find("folder " + (d / "missing").string() + " does not exist"),
            std::string::npos);
  fs::remove_all(d);
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The names in d, sorted.
std::vector<std::string> names_in(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string write_error(const std::vector<std::pair<fs::path, std::string>>& files) {
  try {
    write_files_atomic(files);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Files, AWriteThatCannotStartLeavesNothing) {
  const fs::path d = temp_dir();
  std::ofstream(d / "plain.txt") << "x";
  const std::string e = write_error({{d / "plain.txt" / "x.png", "data"}});
  EXPECT_NE(e.find("cannot write " + (d / "plain.txt" / "x.png").string() + ": "),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(write_error({{"/proc/mp-files-test.png", "data"}}), "");
  if (geteuid() != 0) {  // root writes anywhere
    fs::create_directory(d / "ro");
    fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_NE(write_error({{d / "ro" / "x.png", "data"}}), "");
    EXPECT_TRUE(fs::is_empty(d / "ro"));
    fs::permissions(d / "ro", fs::perms::owner_all);
    fs::remove(d / "ro");
  }
  EXPECT_EQ(names_in(d), std::vector<std::string>{"plain.txt"});
  fs::remove_all(d);
}

TEST(Files, AFailedRenameLeavesNoPart) {
  const fs::path d = temp_dir();
  fs::create_directories(d / "taken" / "inside");  // a folder that rename(2) cannot replace
  const std::string e = write_error({{d / "taken", "data"}});
  EXPECT_NE(e.find("cannot write " + (d / "taken").string()), std::string::npos) << e;
  EXPECT_EQ(names_in(d), std::vector<std::string>{"taken"});
  fs::remove_all(d);
}

TEST(Files, PairedWritesLeaveBothOrNeither) {
  const fs::path d = temp_dir();
  write_files_atomic({{d / "a.json", "new json"}, {d / "a.png", "new png"}});
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"a.json", "a.png"}));
  std::string s;
  std::ifstream(d / "a.png") >> s;
  EXPECT_EQ(s, "new");
  fs::remove(d / "a.json");
  fs::remove(d / "a.png");
  std::ofstream(d / "plain.txt") << "x";
  // The second cannot be written: the first is not renamed into place either.
  EXPECT_NE(write_error({{d / "b.json", "json"}, {d / "plain.txt" / "b.png", "png"}}), "");
  // The second cannot be renamed into place: the first, already renamed, is taken back.
  fs::create_directories(d / "c.png" / "inside");
  const std::string e = write_error({{d / "c.json", "json"}, {d / "c.png", "png"}});
  EXPECT_NE(e.find((d / "c.png").string()), std::string::npos) << e;
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"c.png", "plain.txt"}));
  fs::remove_all(d);
}

// Waits for a forked child; its exit code, or 1000 + the signal that ended it.
int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

TEST(Files, AWriteOverTheFileSizeLimitFailsAndLeavesNoPart) {
  const fs::path d = temp_dir();
  const pid_t pid = fork();
  if (pid == 0) {
    install_cleanup_on_signals();
    rlimit lim{};
    getrlimit(RLIMIT_FSIZE, &lim);
    lim.rlim_cur = 1000;
    setrlimit(RLIMIT_FSIZE, &lim);
    try {
      write_file_atomic(d / "big.bin", std::string(10000, 'x'));
    } catch (const std::runtime_error& e) {
      _exit(std::string(e.what()).find("File too large") != std::string::npos ? 3 : 4);
    }
    _exit(0);
  }
  EXPECT_EQ(wait_for(pid), 3) << "3: failed with EFBIG; 1000 + 25: killed by SIGXFSZ";
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

// SIGQUIT too: its default action (a core dump) once left the part behind.
class FilesSignal : public ::testing::TestWithParam<int> {};

TEST_P(FilesSignal, ASignalDuringAWriteRemovesThePart) {
  const int sig = GetParam();
  const fs::path d = temp_dir();
  int started[2], go[2];
  ASSERT_EQ(pipe(started), 0);
  ASSERT_EQ(pipe(go), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    signal(sig, SIG_DFL);        // as a program started normally has it, whoever runs the tests
    const rlimit no_core{0, 0};  // SIGQUIT's default action writes none here
    setrlimit(RLIMIT_CORE, &no_core);
    install_cleanup_on_signals();
    try {
      StreamedFile file(d / "x.png");
      if (std::fputs("half an image", file.stream()) < 0 || std::fflush(file.stream()) != 0)
        _exit(4);
      // Under way: the parent signals while this waits for a byte that never comes.
      char c;
      if (write(started[1], "s", 1) != 1 || read(go[0], &c, 1) != 1) _exit(5);
    } catch (const std::runtime_error&) {
      _exit(4);
    }
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(started[0], &c, 1), 1);
  EXPECT_EQ(names_in(d).size(), 1u) << "the part being written";
  kill(pid, sig);
  EXPECT_EQ(wait_for(pid), 1000 + sig);
  for (const int fd : {started[0], started[1], go[0], go[1]}) close(fd);
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

INSTANTIATE_TEST_SUITE_P(Signals, FilesSignal, ::testing::Values(SIGTERM, SIGQUIT));

// The window's way: the first SIGTERM only asks, so that it can save its settings and then end
// by the signal; a second one, for a window that does not answer, ends it at once and removes
// what it was writing.
TEST(Files, AFirstSignalAsksToQuitAndASecondEndsAtOnce) {
  const fs::path d = temp_dir();
  const pid_t asked = fork();
  if (asked == 0) {
    signal(SIGTERM, SIG_DFL);
    install_cleanup_on_signals();
    ask_to_quit_on_signals();
    raise(SIGTERM);
    if (quit_signal() != SIGTERM) _exit(3);
    end_as_asked();
    _exit(4);
  }
  EXPECT_EQ(wait_for(asked), 1000 + SIGTERM) << "3: not asked; 4: not ended by it";
  const pid_t twice = fork();
  if (twice == 0) {
    signal(SIGTERM, SIG_DFL);
    install_cleanup_on_signals();
    ask_to_quit_on_signals();
    StreamedFile file(d / "x.png");
    raise(SIGTERM);
    raise(SIGTERM);
    _exit(3);
  }
  EXPECT_EQ(wait_for(twice), 1000 + SIGTERM) << "3: the second signal did not end it";
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

TEST(Files, ALinkPlantedAtATemporaryNameRedirectsNothing) {
  const fs::path d = temp_dir();
  std::ofstream(d / "victim.txt") << "keep";
  // The name temporary files had (target, ".part-", the pid), planted beforehand as the issue's
  // attacker did: the write went through the link into the victim.
  fs::create_symlink(d / "victim.txt", d / ("o.png.part-" + std::to_string(getpid())));
  write_files_atomic({{d / "o.json", "json"}, {d / "o.png", "png"}});
  EXPECT_EQ(text_of(d / "victim.txt"), "keep");
  EXPECT_EQ(text_of(d / "o.png"), "png");
  EXPECT_FALSE(fs::is_symlink(d / "o.png"));
  fs::remove_all(d);
}

// An output named by a link (relative, through a second link) replaces the file the links name
// and leaves the links as they were, for a whole write and a streamed one.
TEST(Files, AnOutputGivenAsALinkReplacesTheFileItNamesAndKeepsTheLink) {
  const fs::path d = temp_dir();
  fs::create_directories(d / "store");
  std::ofstream(d / "store" / "kept.png") << "old";
  fs::create_symlink("kept.png", d / "store" / "hop.png");
  fs::create_symlink("store/hop.png", d / "o.png");
  write_files_atomic({{d / "o.json", "json"}, {d / "o.png", "png"}});
  EXPECT_TRUE(fs::is_symlink(d / "o.png"));
  EXPECT_TRUE(fs::is_symlink(d / "store" / "hop.png"));
  EXPECT_EQ(text_of(d / "store" / "kept.png"), "png");
  {
    StreamedFile streamed(d / "o.png");
    std::fputs("streamed", streamed.stream());
    write_files_atomic({}, streamed);
  }
  EXPECT_TRUE(fs::is_symlink(d / "o.png"));
  EXPECT_EQ(text_of(d / "store" / "kept.png"), "streamed");
  // A link to nothing yet: the file it names is made.
  fs::create_symlink("store/new.png", d / "n.png");
  write_file_atomic(d / "n.png", "new");
  EXPECT_TRUE(fs::is_symlink(d / "n.png"));
  EXPECT_EQ(text_of(d / "store" / "new.png"), "new");
  EXPECT_EQ(names_in(d / "store"), (std::vector<std::string>{"hop.png", "kept.png", "new.png"}));
  fs::remove_all(d);
}

TEST(Files, AReplacedFileKeepsItsMode) {
  const fs::path d = temp_dir();
  const mode_t old_mask = umask(022);
  std::ofstream(d / "secret.json") << "old";
  fs::permissions(d / "secret.json", fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomic(d / "secret.json", "new");
  write_file_atomic(d / "fresh.json", "new");
  umask(old_mask);
  EXPECT_EQ(fs::status(d / "secret.json").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(text_of(d / "secret.json"), "new");
  // A new file takes the umask's mode, as any other program's would.
  EXPECT_EQ(fs::status(d / "fresh.json").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  fs::remove_all(d);
}

TEST(Files, NamesUpToTheLimitAreWritten) {
  const fs::path d = temp_dir();
  const std::string stem(246, 's');  // 250 bytes with ".png", 251 with ".json"
  const fs::path png = d / (stem + ".png");
  EXPECT_EQ(writable_error(png), "");
  EXPECT_EQ(write_error({{sidecar_path(png), "json"}, {png, "png"}}), "");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{stem + ".json", stem + ".png"}));
  fs::remove_all(d);
}

// The old files of a pair are all still there, unchanged, whichever step of the replacement fails.
TEST(Files, AFailedRenameKeepsTheOldSet) {
  const fs::path d = temp_dir();
  write_files_atomic({{d / "a.json", "old json"}, {d / "a.png", "old png"}});
  // The third cannot be renamed into place (a folder), after the first two were.
  fs::create_directories(d / "a.kfr" / "inside");
  const std::string e =
      write_error({{d / "a.json", "new json"}, {d / "a.png", "new png"}, {d / "a.kfr", "kfr"}});
  EXPECT_NE(e.find("cannot write " + (d / "a.kfr").string()), std::string::npos) << e;
  EXPECT_EQ(text_of(d / "a.json"), "old json");
  EXPECT_EQ(text_of(d / "a.png"), "old png");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"a.json", "a.kfr", "a.png"}));
  // The image's rename fails after its sidecar's: the old sidecar stays, not removed.
  fs::remove(d / "a.png");
  fs::create_directories(d / "a.png" / "inside");
  EXPECT_NE(write_error({{d / "a.json", "new json"}, {d / "a.png", "new png"}}), "");
  EXPECT_EQ(text_of(d / "a.json"), "old json");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"a.json", "a.kfr", "a.png"}));
  fs::remove_all(d);
}

TEST(Files, OneWriterAtATimePerOutput) {
  const fs::path d = temp_dir();
  {
    const OutputLock first(d / "o.png");
    try {
      const OutputLock second(d / "o.png");
      ADD_FAILURE() << "a second lock on a held output";
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("cannot write " + (d / "o.png").string() + ": "), std::string::npos) << m;
      EXPECT_NE(m.find("another"), std::string::npos) << m;
    }
    const OutputLock other(d / "other.png");  // another output is free
  }
  EXPECT_NO_THROW(OutputLock(d / "o.png")) << "free once the first is released";
  EXPECT_EQ(names_in(d), std::vector<std::string>{}) << "no lock file left behind";
  fs::remove_all(d);
}

TEST(Files, SidecarAndPng) {
  EXPECT_EQ(sidecar_path("out/shot.png"), fs::path("out/shot.json"));
  // In the image's case: shot.PNG, another file than shot.png where case counts, has its own.
  EXPECT_EQ(sidecar_path("out/shot.PNG"), fs::path("out/shot.JSON"));
  const std::uint8_t px[2 * 2 * 4] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 255};
  const std::string png = encode_png(2, 2, px);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST(Files, ConfigDirFollowsXdg) {
  const fs::path d = temp_dir();
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", d.c_str(), 1);
  EXPECT_EQ(config_dir(), d / "mandelpipe");
  EXPECT_TRUE(fs::is_directory(d / "mandelpipe"));
  if (old)
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
  fs::remove_all(d);
}

}  // namespace
}  // namespace mp
