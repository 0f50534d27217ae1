// mandelpipe as a user runs it: exit codes, messages, files. The window test needs a display
// (scripts/test.sh starts Xvfb); it skips without one unless MP_REQUIRE_DISPLAY is set.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace mp {
namespace {
namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out, err;
};

std::string binary() {
  if (const char* b = std::getenv("MANDELPIPE_BIN")) return b;
  return MANDELPIPE_BIN;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mp_program_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "config");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // env: "VAR=value ..." or "-u VAR" words for env(1).
  Result run(const std::string& args, const std::string& env = "") {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd = "cd '" + dir_.string() + "' && env " + env + " XDG_CONFIG_HOME='" +
                            (dir_ / "config").string() + "' '" + binary() + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
  }

  void expect_one_line_error(const Result& r, int code, const std::string& fragment) {
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }

  // Window tests skip without a display, unless MP_REQUIRE_DISPLAY says there must be one.
  static bool has_display() {
    if (const char* d = std::getenv("DISPLAY"); d && *d) return true;
    if (std::getenv("MP_REQUIRE_DISPLAY"))
      ADD_FAILURE() << "MP_REQUIRE_DISPLAY is set but DISPLAY is not";
    return false;
  }

  fs::path dir_;
};

TEST_F(ProgramTest, HelpAndVersion) {
  Result r = run("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("render"), std::string::npos);
  r = run("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("mandelpipe ", 0), 0u);
}

TEST_F(ProgramTest, BadFlagsGiveOneLineAndExit2) {
  expect_one_line_error(run("--bogus"), 2, "--bogus");
  expect_one_line_error(run("render --out x.png --width 0"), 2, "--width");
  expect_one_line_error(run("render --out x.png --iters 99999999"), 2, "--iters");
  expect_one_line_error(run("render --out x.png --center nan,0"), 2, "--center");
  expect_one_line_error(run("render --out x.png --span -3"), 2, "--span");
  expect_one_line_error(run("render --out x.png --palette nope"), 2, "--palette");
  EXPECT_FALSE(fs::exists(dir_ / "x.png"));
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

TEST_F(ProgramTest, UnwritableOutputFailsBeforeWork) {
  expect_one_line_error(run("render --out /nonexistent-folder/x.png --cpu"), 2, "cannot write");
  expect_one_line_error(run("--screenshot /nonexistent-folder/x.png --cpu"), 2, "cannot write");
}

TEST_F(ProgramTest, BenchWithoutGpuSaysSoAndExits3) {
  expect_one_line_error(run("bench", "CUDA_VISIBLE_DEVICES="), 3, "needs a CUDA GPU");
}

TEST_F(ProgramTest, ExperimentsCheckTheNameThenNeedAGpu) {
  expect_one_line_error(run("experiment warp-speed"), 2, "fma-grouping");
  expect_one_line_error(run("experiment sin-overlap", "CUDA_VISIBLE_DEVICES="), 3,
                        "needs a CUDA GPU");
}

TEST_F(ProgramTest, BadCaptureFolderFailsBeforeAWindowOpens) {
  expect_one_line_error(run("--capture-dir /nonexistent-folder --cpu"), 2, "--capture-dir");
}

TEST_F(ProgramTest, NoDisplayIsAClearError) {
  expect_one_line_error(run("--cpu --frames 1", "-u DISPLAY -u WAYLAND_DISPLAY"), 2, "no display");
}

TEST_F(ProgramTest, RenderWritesPngAndSidecar) {
  const Result r =
      run("render --out shot.png --width 96 --height 64 --iters 200 --cpu --variant fma4-sin");
  ASSERT_EQ(r.code, 0) << r.err;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir_ / "shot.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  EXPECT_EQ(w, 96);
  EXPECT_EQ(h, 64);
  std::set<unsigned> colours;
  for (int i = 0; i < w * h; ++i)
    colours.insert(px[4 * i] << 16 | px[4 * i + 1] << 8 | px[4 * i + 2]);
  stbi_image_free(px);
  EXPECT_GT(colours.size(), 50u) << "image looks blank";
  const auto j = nlohmann::json::parse(slurp(dir_ / "shot.json"));
  EXPECT_EQ(j["parameters"]["variant"], "fma4-sin");
  EXPECT_EQ(j["parameters"]["iters"], 200);
  EXPECT_GT(j["frame"]["measured"]["pixel_iters"].get<double>(), 96 * 64);
  EXPECT_NE(j["renderer"].get<std::string>().find("CPU"), std::string::npos);
  // Nothing half-written left behind.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".part"), std::string::npos) << e.path();
}

TEST_F(ProgramTest, WindowRendersThirtyCpuFramesAndSavesAScreenshot) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const Result r =
      run("--cpu --frames 30 --width 480 --height 320 --iters 256 --screenshot win.png");
  ASSERT_EQ(r.code, 0) << r.err;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir_ / "win.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr) << r.out << r.err;
  EXPECT_GT(w, 0);
  std::set<unsigned> colours;
  for (int i = 0; i < w * h; ++i)
    colours.insert(px[4 * i] << 16 | px[4 * i + 1] << 8 | px[4 * i + 2]);
  stbi_image_free(px);
  EXPECT_GT(colours.size(), 100u) << "screenshot looks blank";
  // Per-user state lives under $XDG_CONFIG_HOME/mandelpipe, never in the working folder.
  EXPECT_TRUE(fs::exists(dir_ / "config" / "mandelpipe" / "settings.json"));
  EXPECT_TRUE(fs::exists(dir_ / "config" / "mandelpipe" / "imgui.ini"));
  EXPECT_FALSE(fs::exists(dir_ / "imgui.ini"));
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

TEST_F(ProgramTest, OutputNamesMustBePng) {
  expect_one_line_error(run("render --out x.json --cpu"), 2, "FILE.png");
  expect_one_line_error(run("--screenshot shot.jpg --cpu"), 2, "FILE.png");
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

TEST_F(ProgramTest, WindowOptionsBeforeASubcommandAreRejected) {
  expect_one_line_error(run("--frames 5 render --out r.png --cpu"), 2, "window option");
  EXPECT_FALSE(fs::exists(dir_ / "r.png"));
}

TEST_F(ProgramTest, OverlayAbTimesBothHalves) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  // 100 frames: ten blocks of seven timed frames (the last frame has no next one to time it
  // from), and four blocks with the overlay that have a block without it on both sides.
  const Result r =
      run("--cpu --frames 100 --width 320 --height 200 --iters 64 --no-vsync --overlay-ab");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("overlay A/B: 35 frames without, 34 with: mean "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("%), block by block "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("n/a"), std::string::npos) << r.out;
}

TEST_F(ProgramTest, UnreadableSettingsAreReportedAndKept) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  fs::create_directories(dir_ / "config" / "mandelpipe");
  const fs::path settings = dir_ / "config" / "mandelpipe" / "settings.json";
  std::ofstream(settings) << "{\"window_width\": 0";
  const Result r = run("--cpu --frames 2 --width 320 --height 200 --iters 64");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("ignoring"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(settings), "{\"window_width\": 0");  // not overwritten
}

}  // namespace
}  // namespace mp
