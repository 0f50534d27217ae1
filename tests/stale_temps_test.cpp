// Temporary files left by runs that were killed: known by name, removed once their writer is
// gone, and never those of a writer that runs or of another output.
#include "io/stale_temps.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/files.h"
#include "io/temp_names.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

constexpr const char* kRandom = "0123456789abcdef";

// The id of a process that has ended: a child waited for.
long ended_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

class StaleTemps : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mp_stale_temps_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path plant(const fs::path& target, long pid) {
    const fs::path p = temp_name(target, pid, kRandom);
    std::ofstream(p) << "half a file";
    return p;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }

  fs::path dir_;
};

TEST(TempNames, ATemporaryNameSaysItsWriterAndItsTarget) {
  const std::string name = temp_name("out/o.png", 4321, kRandom).filename().string();
  EXPECT_EQ(name, std::string(".o.png.part-4321-") + kRandom);
  EXPECT_EQ(temp_writer(name, "o.png"), 4321);
  EXPECT_EQ(temp_writer(name, ""), 4321);
  EXPECT_EQ(temp_writer(name, "o.json"), std::nullopt);
  EXPECT_EQ(temp_writer(name, "o.pn"), std::nullopt);
  // A name cut to fit NAME_MAX is still its target's.
  const std::string longest(NAME_MAX - 4, 'x');
  const std::string cut = temp_name(longest + ".png", 99, kRandom).filename().string();
  EXPECT_EQ(cut.size(), static_cast<std::size_t>(NAME_MAX));
  EXPECT_EQ(temp_writer(cut, longest + ".png"), 99);
  EXPECT_EQ(temp_writer(cut, longest + ".json"), 99) << "the same cut: the writer's id decides";
}

TEST(TempNames, NoOtherNameIsATemporaryFile) {
  for (const std::string& name :
       {std::string("o.png"), std::string(".o.png.lock"), std::string("o.png.part-123"),
        std::string(".o.png.part-123"), std::string(".o.png.part-0123456789abcdef"),
        std::string(".o.png.part-12-0123456789ABCDEF"), std::string(".o.png.part-12-0123"),
        std::string(".o.png.part--1-0123456789abcdef"),
        std::string(".o.png.part-012-0123456789abcdef"),
        std::string(".o.png.part-99999999999-0123456789abcdef"),
        std::string(".o.png.old-0123456789abcdef"), std::string("..part-1-0123456789abcdef")})
    EXPECT_EQ(temp_writer(name, ""), std::nullopt) << name;
}

TEST_F(StaleTemps, ThoseOfAnEndedWriterGoAndOthersStay) {
  const fs::path png = dir_ / "o.png";
  const fs::path stale = plant(png, ended_pid());
  const fs::path stale_json = plant(dir_ / "o.json", ended_pid());
  const fs::path live = plant(png, getpid());
  const fs::path other = plant(dir_ / "other.png", ended_pid());
  fs::create_directory(temp_name(png, ended_pid(), "fedcba9876543210"));  // not a file of ours
  std::ofstream(png) << "the old image";
  const std::vector<fs::path> removed = remove_stale_temps({png, dir_ / "o.json"});
  EXPECT_EQ(removed, (std::vector<fs::path>{stale, stale_json}));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(stale_json));
  EXPECT_TRUE(fs::exists(live)) << "its writer runs";
  EXPECT_TRUE(fs::exists(other)) << "another output's";
  EXPECT_TRUE(fs::exists(png));
  EXPECT_EQ(names().size(), 4u);
}

TEST_F(StaleTemps, AFolderLockedWholeLosesEveryStaleTemporaryFile) {
  const fs::path a = plant(dir_ / "frame-00001.png", ended_pid());
  const fs::path b = plant(dir_ / "frames.json", ended_pid());
  const fs::path live = plant(dir_ / "frame-00002.png", getpid());
  std::ofstream(dir_ / "frame-00000.png") << "a frame";
  const std::vector<fs::path> removed = remove_stale_temps_in(dir_);
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
  EXPECT_EQ(names(), (std::vector<std::string>{live.filename().string(), "frame-00000.png"}));
}

// What a run stopped by SIGKILL leaves is what the next run removes.
TEST_F(StaleTemps, AKilledWritersTemporaryFileIsRemoved) {
  const fs::path png = dir_ / "o.png";
  int started[2];
  ASSERT_EQ(pipe(started), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    StreamedFile file(png);
    std::fputs("half an image", file.stream());
    std::fflush(file.stream());
    if (write(started[1], "s", 1) != 1) _exit(2);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(started[0], &c, 1), 1);
  close(started[0]);
  close(started[1]);
  ASSERT_EQ(names().size(), 1u);
  EXPECT_EQ(remove_stale_temps({png}), std::vector<fs::path>{}) << "its writer still runs";
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(remove_stale_temps({png}).size(), 1u);
  EXPECT_EQ(names(), std::vector<std::string>{});
}

}  // namespace
}  // namespace mp
