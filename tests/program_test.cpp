// mandelpipe as a user runs it: exit codes, messages, files, and the CSV and JSON that bench and
// experiment print, parsed as a script would. The window tests need a display (scripts/test.sh
// starts Xvfb); they skip without one unless MP_REQUIRE_DISPLAY is set. bench and experiment
// need a CUDA GPU; their tests skip, with the reason, where this process finds none (and fail
// there under MP_REQUIRE_GPU).
#include <gtest/gtest.h>
#include <signal.h>
#include <stb_image.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_renderer.h"
#include "io/experiment_report.h"
#include "io/report.h"
#include "io/settings.h"
#include "model/variant_table.h"
#include "program_runner.h"
#include "required.h"
#include "variants.h"
#include "version.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

using program::binary;
using program::Result;
using program::slurp;

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

  // env: "VAR=value ..." or "-u VAR" words for env(1); stdout_to: where stdout goes instead of
  // Result::out.
  Result run(const std::string& args, const std::string& env = "", const fs::path& stdout_to = {}) {
    const fs::path out = stdout_to.empty() ? dir_ / "stdout" : stdout_to, err = dir_ / "stderr";
    const std::string cmd = "cd '" + dir_.string() + "' && env " + env + " XDG_CONFIG_HOME='" +
                            (dir_ / "config").string() + "' '" + binary() + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() + "' </dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    fs::remove(err);
    if (stdout_to.empty()) {
      r.out = slurp(out);
      fs::remove(out);
    }
    return r;
  }

  // The program started, sent `sig` `delay` seconds later, and waited for (killed after 30 s).
  Result run_and_signal(const std::string& args, double delay, int sig) {
    return program::result_of(program::run_signalled(exec_line(args), delay, sig, 30),
                              dir_ / "stdout", dir_ / "stderr");
  }
  // The window started, sent `sig` once it is on the display (looked for up to 30 s), and
  // waited for.
  Result run_and_signal_once_shown(const std::string& args, int sig) {
    const std::string find = "'" + key_presser() + "' window mandelpipe >/dev/null 2>&1";
    auto shown = [&find] {
      for (int i = 0; i < 300 && std::system(find.c_str()) != 0; ++i) usleep(100000);
    };
    return program::result_of(program::run_signalled_when(exec_line(args), shown, sig, 30),
                              dir_ / "stdout", dir_ / "stderr");
  }
  // The shell line that runs the program itself (exec: signals reach it), its outputs to files.
  std::string exec_line(const std::string& args) const {
    return "cd '" + dir_.string() + "' && exec env XDG_CONFIG_HOME='" + (dir_ / "config").string() +
           "' '" + binary() + "' " + args + " >'" + (dir_ / "stdout").string() + "' 2>'" +
           (dir_ / "stderr").string() + "' </dev/null";
  }
  // What the test folder holds besides the config folder.
  std::vector<std::string> left_files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename() != "config") names.push_back(e.path().filename().string());
    return names;
  }

  void expect_one_line_error(const Result& r, int code, const std::string& fragment) {
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }

  // The window in the background and, `delay` seconds later, keys pressed at it (names as
  // tests/tools/xtest-keys.c takes them: X key names, wN waits N ms); then waited for.
  Result run_with_keys(const std::string& args, double delay, const std::string& keys) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string cmd = "cd '" + dir_.string() + "' && { env XDG_CONFIG_HOME='" +
                            (dir_ / "config").string() + "' '" + binary() + "' " + args + " >'" +
                            out.string() + "' 2>'" + err.string() +
                            "' </dev/null & pid=$!; sleep " + std::to_string(delay) + "; '" +
                            key_presser() + "' " + keys + "; wait $pid; }";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  // The keys that open the window, press F12 and close it once the capture is written (a minute
  // at most: a sanitized build on a loaded machine takes its time).
  std::string f12_then_escape() const {
    return "window mandelpipe F12 until '" + (dir_ / "*.png").string() + "' w300 Escape";
  }
  // The last file in the test's folder whose name ends in `ext` (a capture's .json or .png).
  std::optional<fs::path> file_ending(const std::string& ext) const {
    std::optional<fs::path> found;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().extension() == ext) found = e.path();
    return found;
  }
  // The build's key presser, or $MANDELPIPE_XTEST_KEYS (a copy carried to another machine).
  static std::string key_presser() {
    if (const char* p = std::getenv("MANDELPIPE_XTEST_KEYS"); p && *p) return p;
#ifdef MP_XTEST_KEYS
    return MP_XTEST_KEYS;
#else
    return "";
#endif
  }
  static bool has_key_presser() {
    const std::string p = key_presser();
    return !p.empty() && access(p.c_str(), X_OK) == 0;
  }
  // The memory the system has free, in GiB (MemAvailable).
  static double available_gib() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string key; meminfo >> key;) {
      double kib = 0;
      meminfo >> kib;
      if (key == "MemAvailable:") return kib / (1 << 20);
      meminfo.ignore(64, '\n');
    }
    return 0;
  }
  // Window tests skip without a display, unless MP_REQUIRE_DISPLAY says there must be one.
  static bool has_display() {
    if (const char* d = std::getenv("DISPLAY"); d && *d) return true;
    if (required("MP_REQUIRE_DISPLAY"))
      ADD_FAILURE() << "MP_REQUIRE_DISPLAY is set but DISPLAY is not";
    return false;
  }
  // Why a window test that presses keys cannot run here, or "" where it can.
  static std::string no_window_keys() {
    if (!has_display()) return "no DISPLAY (scripts/test.sh runs this under Xvfb)";
    if (!has_key_presser()) return "no XTest to press keys with (libxtst-dev)";
    return "";
  }
  // The window's flag that writes its captures into the test's folder, with a space before it.
  std::string capture_dir() const {
    return " --capture-dir '" + dir_.string() + "'";
  }
  // F12 on the CPU path at a view 1e-20 wide near the seahorse valley, with `flags` more: the
  // capture's sidecar's measured figures of the frame; nothing, the failure added, where the window
  // failed or wrote no sidecar.
  std::optional<nlohmann::json> deep_capture(const std::string& flags) {
    const Result w = run_with_keys(
        "--cpu --frames 2000 --width 320 --height 180 --no-vsync --iters 3000" + flags +
            " --center -0.743643887037151,0.131825904205330 --span 1e-20" + capture_dir(),
        0.0, f12_then_escape());
    if (w.code != 0) {
      ADD_FAILURE() << "exit " << w.code << ": " << w.err;
      return std::nullopt;
    }
    const std::optional<fs::path> sidecar = file_ending(".json");
    if (!sidecar) {
      ADD_FAILURE() << "no sidecar: " << w.out;
      return std::nullopt;
    }
    return nlohmann::json::parse(slurp(*sidecar)).at("frame").at("measured");
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

TEST_F(ProgramTest, HelpThatCannotBeWrittenFails) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  expect_one_line_error(run("--help", "", "/dev/full"), 2, "cannot write to standard output");
  expect_one_line_error(run("--version", "", "/dev/full"), 2, "cannot write to standard output");
  // An error after output that was lost says both, in one line.
  const Result r = run("experiment sin-overlap", "CUDA_VISIBLE_DEVICES=", "/dev/full");
  expect_one_line_error(r, 3, "needs a CUDA GPU to measure");
  EXPECT_NE(r.err.find("; and standard output: No space left on device"), std::string::npos)
      << r.err;
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

TEST_F(ProgramTest, UntrustedTextInAnErrorStaysOnePrintableLine) {
  // printf, as sh has no $'\n': a newline and a terminal escape (red) in the palette's name.
  const Result r = run("render --out x.png --palette \"$(printf 'a\\nb\\033[31m')\"");
  expect_one_line_error(r, 2, "--palette: unknown 'a\\nb\\x1b[31m'");
  EXPECT_EQ(std::count_if(r.err.begin(), r.err.end(),
                          [](unsigned char c) { return (c < 0x20 && c != '\n') || c == 0x7f; }),
            0)
      << r.err;
}

TEST_F(ProgramTest, UnwritableOutputFailsBeforeWork) {
  expect_one_line_error(run("render --out /nonexistent-folder/x.png --cpu"), 2, "cannot write");
  expect_one_line_error(run("--screenshot /nonexistent-folder/x.png --cpu"), 2, "cannot write");
  std::ofstream(dir_ / "plain.txt") << "x";
  expect_one_line_error(run("render --out plain.txt/x.png --cpu"), 2, "plain.txt is not a folder");
}

TEST_F(ProgramTest, NonUtf8OutputNameFailsBeforeWork) {
  // The sidecar JSON records the name, and JSON strings are UTF-8; printf, as sh has no $'\xff'.
  expect_one_line_error(run("render --out \"$(printf '\\377.png')\" --cpu --width 8 --height 8"), 2,
                        "--out: the file name is not valid UTF-8");
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename(), "config") << "written: " << e.path();
}

TEST_F(ProgramTest, BenchWithoutGpuSaysSoAndExits3) {
  expect_one_line_error(run("bench", "CUDA_VISIBLE_DEVICES="), 3, "needs a CUDA GPU");
}

TEST_F(ProgramTest, ExperimentsCheckTheNameThenNeedAGpu) {
  expect_one_line_error(run("experiment warp-speed"), 2, "experiment: unknown 'warp-speed'");
  // Without a GPU: the model's prediction, which needs none, and one line that the measurement
  // does.
  const Result r = run("experiment sin-overlap", "CUDA_VISIBLE_DEVICES=");
  expect_one_line_error(r, 3, "needs a CUDA GPU to measure");
  EXPECT_NE(r.err.find("the model's prediction is on stdout"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("## sin-overlap: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Predicted for sm_90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| interleaved / sum alone | 0."), std::string::npos) << r.out;
  // One whose prediction rests on a measurement says so instead.
  const Result overhead = run("experiment launch-overhead", "CUDA_VISIBLE_DEVICES=");
  expect_one_line_error(overhead, 3, "needs a CUDA GPU to measure");
  EXPECT_NE(overhead.out.find("without a measurement: its prediction rests on the launch overhead"),
            std::string::npos)
      << overhead.out;
  EXPECT_EQ(overhead.out.find("Predicted for"), std::string::npos) << overhead.out;
  // CSV and JSON carry the prediction too, for scripts, with nothing measured.
  const Result json = run("experiment sin-overlap --format json", "CUDA_VISIBLE_DEVICES=");
  expect_one_line_error(json, 3, "needs a CUDA GPU to measure");
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["experiment"], "sin-overlap");
  EXPECT_TRUE(j["rows"][0]["measured"].is_null()) << json.out;
  EXPECT_GT(j["rows"][0]["predicted"].get<double>(), 0) << json.out;
  const Result csv = run("experiment sin-overlap --format csv", "CUDA_VISIBLE_DEVICES=");
  expect_one_line_error(csv, 3, "needs a CUDA GPU to measure");
  EXPECT_EQ(csv.out.rfind("experiment,label,predicted,unit,note\nsin-overlap,", 0), 0u) << csv.out;
}

// The one list (the catalogue) as scripts read it: every name it prints is one the command
// runs, and an unknown name's message lists the same names in the same order.
TEST_F(ProgramTest, ExperimentListNamesWhatTheCommandRuns) {
  const Result list = run("experiment --list", "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.err, "");
  std::istringstream in(list.out);
  std::string known;
  int names = 0;
  for (std::string line; std::getline(in, line); ++names) {
    // The name, then what the experiment asks.
    const std::string name = line.substr(0, line.find(' '));
    ASSERT_FALSE(name.empty()) << list.out;
    EXPECT_GT(line.size(), name.size() + 10) << "a line says what it asks: " << line;
    known += (known.empty() ? "" : ", ") + name;
    expect_one_line_error(run("experiment " + name, "CUDA_VISIBLE_DEVICES="), 3,
                          "needs a CUDA GPU");
  }
  EXPECT_GT(names, 0);
  expect_one_line_error(run("experiment warp-speed"), 2, "(known: " + known + ")");
  expect_one_line_error(run("experiment --list dispatch"), 2, "--list takes no name");
  // The same list for scripts.
  const Result json = run("experiment --list --format json", "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(json.code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(static_cast<int>(j.size()), names);
  EXPECT_EQ(j[0]["name"].get<std::string>(), known.substr(0, known.find(',')));
}

// One definition of a view: F12's sidecar gives the view as Ctrl+C copies it (of the area beside
// the panel, with that area's size), and render given it writes the pixels the window shows
// there. The colours come from the GL shader in the window and its CPU twin in render, a level
// apart at most.
TEST_F(ProgramTest, WhatTheWindowShowsBesideThePanelIsWhatRenderWrites) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const Result w = run_with_keys(
      "--cpu --frames 1000 --width 640 --height 360 --iters 200 "
      "--no-vsync --center -0.7453,0.1127 --span 0.02" +
          capture_dir(),
      0.0, f12_then_escape());
  ASSERT_EQ(w.code, 0) << w.err;
  const std::optional<fs::path> sidecar = file_ending(".json"), shot = file_ending(".png");
  ASSERT_TRUE(sidecar && shot) << w.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(*sidecar));
  const nlohmann::json& v = j.at("view");
  const int left = v.at("left"), width = v.at("width"), height = v.at("height");
  EXPECT_GT(left, 0);
  EXPECT_EQ(left + width, 640);
  EXPECT_EQ(j.at("image_size").at("width"), 640);
  EXPECT_EQ(j.at("mandelpipe"), std::string(kVersion));
  EXPECT_EQ(v.at("center")[0], "-0.7453") << "the centre typed is the middle of what is seen";
  const Result r =
      run("render --cpu --out r.png --center " + v.at("center")[0].get<std::string>() + "," +
          v.at("center")[1].get<std::string>() + " --span " + v.at("span").get<std::string>() +
          " --iters 200 --width " + std::to_string(width) + " --height " + std::to_string(height));
  ASSERT_EQ(r.code, 0) << r.err;
  int ww = 0, wh = 0, rw = 0, rh = 0, n = 0;
  unsigned char* win = stbi_load(shot->c_str(), &ww, &wh, &n, 4);
  unsigned char* img = stbi_load((dir_ / "r.png").c_str(), &rw, &rh, &n, 4);
  ASSERT_TRUE(win && img);
  ASSERT_EQ(rw, width);
  ASSERT_EQ(rh, wh);
  // Pixels differing by more than the colour paths' level, with the window's shifted by dx, dy
  // (where they differ, whether the picture is of the right place tells why).
  const auto differing_at = [&](int dx, int dy, int* top, int* bottom) {
    long n = 0;
    for (int y = std::max(0, -dy); y < std::min(rh, rh - dy); ++y)
      for (int x = std::max(0, -dx - left); x < std::min(rw, rw - dx); ++x)
        for (int c = 0; c < 3; ++c)
          if (std::abs(win[((y + dy) * ww + left + x + dx) * 4 + c] - img[(y * rw + x) * 4 + c]) >
              2) {
            ++n;
            if (top) *top = std::min(*top, y);
            if (bottom) *bottom = std::max(*bottom, y);
            break;
          }
    return n;
  };
  int top = rh, bottom = -1;
  const long differing = differing_at(0, 0, &top, &bottom);
  std::string shifts;
  if (differing >= rw * rh / 200)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        shifts += " (" + std::to_string(dx) + "," + std::to_string(dy) +
                  "): " + std::to_string(differing_at(dx, dy, nullptr, nullptr));
  stbi_image_free(win);
  stbi_image_free(img);
  // Pixels on the set's edge may escape on one side of a rounding and not the other.
  EXPECT_LT(differing, rw * rh / 200)
      << differing << " of " << rw * rh << " pixels differ, in rows " << top << " to " << bottom
      << "; shifted by dx,dy:" << shifts << "; sidecar: " << j.dump() << "; window: " << w.out;
}

// F12 pressed while a frame of a second or more still draws takes the picture once the frame is
// finished, not half of it; the window closed first says that no capture was taken.
TEST_F(ProgramTest, ACaptureWaitsForTheFrameToFinish) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const std::string heavy =
      "--cpu --frames 2000 --width 640 --height 360 --no-vsync "
      "--center -0.7453,0.1127 --span 0.02" +
      capture_dir() + " --iters ";
  const Result w = run_with_keys(heavy + "20000", 0.0, f12_then_escape());
  ASSERT_EQ(w.code, 0) << w.err;
  EXPECT_EQ(w.out.find("not taken"), std::string::npos) << w.out;
  const std::optional<fs::path> sidecar = file_ending(".json");
  ASSERT_TRUE(sidecar) << w.out;
  // Of the frame shown, finished: a capture taken while it drew would have no frame's figures.
  const nlohmann::json m = nlohmann::json::parse(slurp(*sidecar)).at("frame").at("measured");
  EXPECT_GT(m.at("pixel_iters").get<double>(), 0) << m;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().rfind("mandelpipe-", 0) == 0) fs::remove(e.path());
  // Ten million steps a pixel do not finish before Escape.
  const Result quit = run_with_keys(heavy + "10000000", 0.0, "window mandelpipe F12 w500 Escape");
  ASSERT_EQ(quit.code, 0) << quit.err;
  EXPECT_NE(quit.out.find("capture (F12) not taken: the window closed before its frame finished"),
            std::string::npos)
      << quit.out;
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_NE(e.path().extension(), ".png") << e.path();
}

// F12 at a deep view on the CPU path: the sidecar's frame gives the perturbation's figures as
// render's sidecar does (steps skipped by the approximation, rebases), of the frame finished.
TEST_F(ProgramTest, ACaptureAtADeepViewGivesThePerturbationsFigures) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const std::optional<nlohmann::json> captured = deep_capture("");
  ASSERT_TRUE(captured);
  const nlohmann::json& m = *captured;
  EXPECT_GT(m.at("cpu_ms").get<double>(), 0) << m;
  EXPECT_GT(m.at("pixel_iters").get<double>(), 0) << m;
  EXPECT_TRUE(m.contains("rebases") && m.contains("skipped_by_approximation")) << m;
}

// --no-approximation reaches the window as it reaches render: a deep frame iterates every step,
// none skipped by the bilinear tables (the frame bench and the whole-kernel model read).
TEST_F(ProgramTest, NoApproximationMakesTheWindowsDeepFramesIterateEveryStep) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const std::optional<nlohmann::json> captured = deep_capture(" --no-approximation");
  ASSERT_TRUE(captured);
  const nlohmann::json& m = *captured;
  EXPECT_GT(m.at("pixel_iters").get<double>(), 0) << m;
  EXPECT_EQ(m.at("skipped_by_approximation").get<double>(), 0) << m;
}

// A window resized past GL's texture limit (llvmpipe's is 16384) renders at
// the limit and says so (the panel, and the capture's sidecar read here), and saves a size the
// loader takes. 20000x16 rather than 20000x20000: the same limit, at a frame CI can afford.
TEST_F(ProgramTest, AWindowPastTheTextureLimitRendersAtTheLimitAndSavesASizeThatLoads) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const Result r = run_with_keys(
      "--cpu --frames 3000 --width 480 --height 270 --iters 64 --no-vsync" + capture_dir(), 1.0,
      "window mandelpipe resize 20000 16 w1000 F12 w3000 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::optional<fs::path> sidecar = file_ending(".json");
  ASSERT_TRUE(sidecar) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(*sidecar));
  ASSERT_TRUE(j.contains("fallback")) << j.dump(2);
  const std::string fallback = j["fallback"].get<std::string>();
  std::string warning;
  const Settings saved = load_settings(dir_ / "config" / "mandelpipe" / "settings.json", &warning);
  EXPECT_EQ(warning, "");
  EXPECT_GT(saved.window_width, 480) << "the resize did not reach the saved settings";
  // The next start takes them without a word.
  const Result again = run("--cpu --frames 2 --iters 64 --no-vsync");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err, "");
  if (fallback.find("texture limit") == std::string::npos) {
    // A GL whose limit is past X's largest window (NVIDIA's is 32768) has nothing to clamp: the
    // window renders at 20000, and the settings keep at most the screen's width for the next.
    EXPECT_LE(saved.window_width, kMaxWindowSide) << fallback;
    GTEST_SKIP() << "this GL's texture limit is above 20000 pixels: nothing to clamp";
  }
}

// The largest window the command line takes, on the CPU path, uploads its
// 2 GiB frame in pieces (in one glTexSubImage2D Mesa's memcpy got a negative size) and says
// first what memory it needs.
TEST_F(ProgramTest, TheLargestWindowOnTheCpuPathUploadsInPiecesAndSaysItsMemory) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const double available = available_gib();
  // ASan's shadow memory and quarantine come on top under scripts/test.sh's second pass.
#if defined(__SANITIZE_ADDRESS__)
  constexpr double kNeedGib = 14;
#else
  constexpr double kNeedGib = 10;
#endif
  if (available < kNeedGib)
    GTEST_SKIP() << "needs about " << kNeedGib
                 << " GiB of free memory (a 16384x16384 frame is 2 GiB, held up to four times "
                    "over); "
                 << available << " GiB available";
  const Result r = run("--cpu --frames 1 --width 16384 --height 16384 --iters 16 --no-vsync");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("a 16384x16384 window: each copy of its frame is 2048 MiB"),
            std::string::npos)
      << r.err;
}

TEST_F(ProgramTest, BadCaptureFolderFailsBeforeAWindowOpens) {
  expect_one_line_error(run("--capture-dir /nonexistent-folder --cpu"), 2, "--capture-dir");
}

TEST_F(ProgramTest, UnknownExperimentFailsBeforeAWindowOpens) {
  // Without a display: a window that opened first would fail with "no display" instead.
  expect_one_line_error(run("--open-experiment nope --cpu", "-u DISPLAY -u WAYLAND_DISPLAY"), 2,
                        "--open-experiment: unknown 'nope' (known: ");
}

// On the CPU path the window opens the experiment's window and says, once, why it does not run.
TEST_F(ProgramTest, AnExperimentOpenedOnTheCpuPathSaysWhyItDoesNotRun) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const Result r =
      run("--cpu --open-experiment sin-overlap --frames 3 --iters 16 --width 320 --height 200 "
          "--no-vsync");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.err.find("--open-experiment sin-overlap: not run; the experiments time GPU kernels "
                 "and the CPU path renders (CPU renderer requested (--cpu)): the window shows "
                 "what it asks and what the model predicts"),
      std::string::npos)
      << r.err;
}

TEST_F(ProgramTest, NoDisplayIsAClearError) {
  expect_one_line_error(run("--cpu --frames 1", "-u DISPLAY -u WAYLAND_DISPLAY"), 2, "no display");
  expect_one_line_error(run("--cpu --frames 1", "-u WAYLAND_DISPLAY DISPLAY="), 2,
                        "no display (DISPLAY is set but empty)");
}

TEST_F(ProgramTest, AnUnknownPaletteAndUnknownKeysStayInTheSettings) {
  // A newer version's palette and key: the window shows its own default and leaves both alone.
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const fs::path file = dir_ / "config" / "mandelpipe" / "settings.json";
  fs::create_directories(file.parent_path());
  std::ofstream(file) << R"({"palette": "not-yet-shipped", "newer": [1, 2]})";
  const Result r = run("--cpu --frames 1 --iters 64 --width 160 --height 120 --no-vsync");
  EXPECT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(file));
  EXPECT_EQ(j.value("palette", ""), "not-yet-shipped") << j.dump();
  EXPECT_EQ(j.value("newer", nlohmann::json()), nlohmann::json::parse("[1, 2]")) << j.dump();
}

TEST_F(ProgramTest, AWindowSizeFromSettingsIsSaidAsTheCommandLinesIs) {
  // Said before the window opens: here, where there is no display, before it fails to.
  fs::create_directories(dir_ / "config" / "mandelpipe");
  std::ofstream(dir_ / "config" / "mandelpipe" / "settings.json")
      << R"({"window_width": 16384, "window_height": 16384})";
  const Result r = run("--cpu --frames 1", "-u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("mandelpipe: a 16384x16384 window: each copy of its frame is"),
            std::string::npos)
      << r.err;
}

// Seen on screen, not only on stderr: the banner says it, for as long as the size costs it.
TEST_F(ProgramTest, AWindowSizeThatCostsMuchIsOnTheBannerWhileItLasts) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  // The window's 256 MiB frame up to four times over, and ASan's shadow on top.
  if (available_gib() < 4)
    GTEST_SKIP() << "needs about 4 GiB of free memory; " << available_gib() << " GiB available";
  fs::create_directories(dir_ / "config" / "mandelpipe");
  std::ofstream(dir_ / "config" / "mandelpipe" / "settings.json")
      << R"({"window_width": 8192, "window_height": 4096})";
  const std::string notice =
      "a 8192x4096 window: each copy of its frame is 256 MiB, up to four copies: up to 1.0 GiB of "
      "memory";
  const Result r = run("--cpu --frames 3 --iters 16 --no-vsync");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("mandelpipe: " + notice + "\n"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("final banner: A" + notice.substr(1) + ".\n"), std::string::npos) << r.out;
  if (!has_key_presser()) GTEST_SKIP() << "no XTest to resize the window with (libxtst-dev)";
  const Result smaller = run_with_keys("--cpu --frames 100000 --iters 16 --no-vsync", 1.0,
                                       "window mandelpipe resize 640 360 w1500 Escape");
  ASSERT_EQ(smaller.code, 0) << smaller.err;
  EXPECT_NE(smaller.out.find("final view:"), std::string::npos) << smaller.out;
  EXPECT_EQ(smaller.out.find("final banner:"), std::string::npos) << smaller.out;
}

// A window shrunk to a few pixels is not reopened at that size: the sides before it are kept.
TEST_F(ProgramTest, ATinyWindowIsNotTheSizeSavedForTheNextStart) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const Result r = run_with_keys("--cpu --frames 100000 --iters 16 --no-vsync", 1.0,
                                 "window mandelpipe resize 60 40 w1000 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string warning;
  const Settings saved = load_settings(dir_ / "config" / "mandelpipe" / "settings.json", &warning);
  EXPECT_EQ(warning, "");
  EXPECT_GE(saved.window_width, 200) << r.out;
  EXPECT_GE(saved.window_height, 200) << r.out;
}

// A logout (SIGHUP), `kill` (SIGTERM) or Ctrl+C in its terminal (SIGINT) quits the window as Esc
// does: what changed in its settings is kept, and the exit status still names the signal.
TEST_F(ProgramTest, ASignalQuitsTheWindowAsEscDoesAndItsSettingsAreKept) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  if (!has_key_presser()) GTEST_SKIP() << "no XTest to find the window with (libxtst-dev)";
  const fs::path settings = dir_ / "config" / "mandelpipe" / "settings.json";
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    fs::remove(settings);
    const int width = 300 + sig;  // each run's own, for the settings to keep
    const Result r = run_and_signal_once_shown(
        "--cpu --width " + std::to_string(width) + " --height 200 --iters 64 --palette ocean", sig);
    EXPECT_EQ(r.signal, sig) << "exit " << r.code << ": " << r.err;
    EXPECT_NE(r.err.find("): quitting as on Esc\n"), std::string::npos) << r.err;
    ASSERT_TRUE(fs::exists(settings)) << "signal " << sig << ": " << r.err;
    std::string warning;
    const Settings saved = load_settings(settings, &warning);
    EXPECT_EQ(warning, "");
    EXPECT_EQ(saved.window_width, width) << "signal " << sig;
    EXPECT_EQ(saved.palette, "ocean") << "signal " << sig;
  }
}

// The layout file's cap, through the window that reads it: one line, the file left as it is
// (never rewritten from what was not read), and the window runs.
TEST_F(ProgramTest, ALayoutFileOverItsCapIsSaidAndLeftAndTheWindowRuns) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const fs::path ini = dir_ / "config" / "mandelpipe" / "imgui.ini";
  fs::create_directories(ini.parent_path());
  const std::string text =
      "[Window][Pipe utilisation (P)]\nPos=10,10\n" + std::string(kMaxLayoutFileBytes, '\n');
  std::ofstream(ini, std::ios::binary) << text;
  const Result r = run("--cpu --frames 2 --width 320 --height 200 --iters 64 --no-vsync");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final view:"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("mandelpipe: ignoring " + ini.string() +
                       ": larger than 4 MiB, not read (left as it is)\n"),
            std::string::npos)
      << r.err;
  std::istringstream lines(r.err);
  int about_ini = 0;
  for (std::string line; std::getline(lines, line);)
    about_ini += line.find("imgui.ini") != std::string::npos;
  EXPECT_EQ(about_ini, 1) << r.err;
  EXPECT_EQ(slurp(ini), text) << "rewritten";
}

// A deep view whose whole image is at the limit at 1,024 and 2,048 steps (its orbits escape past
// 4,096): --auto-iters doubles on to the depth's floor instead of taking one doubling that freed
// nothing for the set's inside, and the image is not one flat colour.
TEST_F(ProgramTest, AutomaticIterationsAtADeepViewDoubleOnWhileNothingEscapes) {
  const Result r = run(
      "render --cpu --out deep.png --center -1.7497219297,0 --span 1e-300 --width 160 --height 90 "
      "--auto-iters on");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "deep.json"));
  EXPECT_GT(j.at("parameters").at("iters").get<unsigned>(), 2048u) << r.err;
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir_ / "deep.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  std::set<unsigned> colours;
  for (int i = 0; i < w * h; ++i)
    colours.insert(px[4 * i] << 16 | px[4 * i + 1] << 8 | px[4 * i + 2]);
  stbi_image_free(px);
  EXPECT_GT(colours.size(), 50u) << r.err;
}

// A jump straight to a minibrot of period 8,007, 9e-33 across, at span 3.6e-32: every pixel is
// still at the limit at 32,768, past the depth's floor, and escapes from 48,084; the period the
// reference finds in view takes the limit on, and the image is the minibrot, not black.
TEST_F(ProgramTest, AutomaticIterationsAtAJumpToADeepMinibrotGoByItsPeriod) {
  const Result r = run(
      "render --cpu --out mini.png --width 64 --height 36 --span 3.6e-32 --auto-iters on --center "
      "-0.743643887037158704752191506114779778215256207948181289816884,"
      "0.131825904205311970493132056385140678972952279328918966209128");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("with a minibrot of period 8007 in view"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("every pixel reached the limit"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir_ / "mini.json"));
  EXPECT_GT(j.at("parameters").at("iters").get<unsigned>(), 48084u) << r.err;
  // The renderer's share is of the image's own wall time, which the preview's seconds are not in.
  EXPECT_NE(r.out.find("ms from the image's first band to its files written)"), std::string::npos)
      << r.out;
  // The sidecar keeps the period the limit went by.
  EXPECT_EQ(j.at("parameters").at("iters_minibrot").at("period").get<unsigned>(), 8007u);
  EXPECT_TRUE(j.at("parameters").at("iters_minibrot").at("in_view").get<bool>());
}

// An image whose every pixel reached the limit says so (one colour is no fault of the renderer);
// one where some escaped does not.
TEST_F(ProgramTest, RenderSaysWhenEveryPixelReachedTheLimit) {
  const Result black =
      run("render --cpu --out black.png --width 32 --height 18 --center "
          "-0.743643887037158704752191506114774,0.131825904205311970493132056385139 --span 1e-20 "
          "--iters 500");
  ASSERT_EQ(black.code, 0) << black.err;
  EXPECT_NE(black.err.find("every pixel reached the limit of 500 iterations"), std::string::npos)
      << black.err;
  const Result some = run("render --cpu --out some.png --width 32 --height 18 --iters 100");
  ASSERT_EQ(some.code, 0) << some.err;
  EXPECT_EQ(some.err.find("every pixel reached"), std::string::npos) << some.err;
}

// A FILE.json beside FILE.png that is not a sidecar (a project's package.json) is not replaced;
// a sidecar is, render after render.
TEST_F(ProgramTest, RenderReplacesNoJsonOfTheUsersBesideItsImage) {
  const std::string mine = "{\n  \"name\": \"my-app\",\n  \"version\": \"1.0.0\"\n}\n";
  { std::ofstream(dir_ / "package.json") << mine; }
  const Result r = run("render --cpu --width 32 --height 18 --iters 100 --out package.png");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("package.json exists and is not a mandelpipe sidecar"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir_ / "package.json"), mine);
  EXPECT_FALSE(fs::exists(dir_ / "package.png"));
  for (int i = 0; i < 2; ++i) {
    const Result again = run("render --cpu --width 32 --height 18 --iters 100 --out own.png");
    EXPECT_EQ(again.code, 0) << again.err;
  }
}

// render --no-approximation iterates every step and makes no tables it would not read.
TEST_F(ProgramTest, RenderWithoutTheApproximationMakesNoTables) {
  const std::string view =
      "render --cpu --width 32 --height 18 --center 0,1 --span 1e-50 --iters 2000";
  const Result without = run(view + " --out without.png --no-approximation");
  ASSERT_EQ(without.code, 0) << without.err;
  EXPECT_NE(without.err.find("no approximation tables (--no-approximation)"), std::string::npos)
      << without.err;
  const Result with = run(view + " --out with.png");
  ASSERT_EQ(with.code, 0) << with.err;
  EXPECT_NE(with.err.find("approximation tables: "), std::string::npos) << with.err;
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
  // The records a newcomer looked for: when, the whole run's wall time beside the CPU's render
  // time (each labelled), the CPU, Giter/s of the steps run and counted, and why the CPU renders.
  EXPECT_FALSE(j["created"].get<std::string>().empty());
  EXPECT_GT(j["timing"]["wall_ms"].get<double>(), 0);
  EXPECT_GT(j["timing"]["cpu_render_ms"].get<double>(), 0);
  EXPECT_TRUE(j["timing"]["measured"].is_string());
  EXPECT_TRUE(j["cpu"].is_string());
  EXPECT_GT(j["frame"]["derived"]["giter_per_s"].get<double>(), 0);
  EXPECT_GT(j["frame"]["derived"]["giter_per_s_counted"].get<double>(), 0);
  EXPECT_NE(j["fallback"].get<std::string>().find("--cpu"), std::string::npos);
  // Nothing half-written left behind.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".part"), std::string::npos) << e.path();
}

TEST_F(ProgramTest, RenderInterruptedLeavesNoFiles) {
  const Result r = run_and_signal(
      "render --cpu --width 2000 --height 2000 --center -0.75,0 --span 0.05 --iters 100000 "
      "--out x.png",
      1.0, SIGINT);
  EXPECT_EQ(r.signal, SIGINT) << "exit " << r.code << ": " << r.err;
  // One line for the stop, besides the progress said before it.
  std::istringstream lines(r.err);
  int others = 0;
  for (std::string line; std::getline(lines, line);)
    others += line.rfind("mandelpipe: rendering, ", 0) != 0;
  EXPECT_LE(others, 1) << r.err;
  EXPECT_EQ(left_files(), std::vector<std::string>{});
}

TEST_F(ProgramTest, RenderOverTheFileSizeLimitFailsWithOneLineAndNoFiles) {
  // RLIMIT_FSIZE of a few blocks: the write fails (EFBIG) instead of SIGXFSZ killing the program.
  const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
  const std::string cmd = "cd '" + dir_.string() + "' && ulimit -f 2 && env XDG_CONFIG_HOME='" +
                          (dir_ / "config").string() + "' '" + binary() +
                          "' render --cpu --width 200 --height 200 --iters 200 --out x.png >'" +
                          out.string() + "' 2>'" + err.string() + "' </dev/null";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  expect_one_line_error(r, 2, "cannot write x.png: File too large");
  EXPECT_EQ(left_files(), std::vector<std::string>{});
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
  // The CPU path's summary speaks of what rendered: the CPU's render time, no kernel or launch.
  EXPECT_NE(r.out.find("mean CPU render "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("kernel"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("launch"), std::string::npos) << r.out;
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

TEST_F(ProgramTest, AKeyPressedDuringASlowFrameIsKept) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // CPU frames of most of a second, rendered a slice per window frame; "1" goes down and up
  // inside one window frame, which polling the key's state at the next frame's start missed.
  const Result r = run_with_keys(
      "--cpu --frames 100000 --width 480 --height 270 --center -0.75,0 --span 0.05 --iters 5000",
      1.2, "1 w300 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final view: variant fma5,"), std::string::npos) << r.out;
}

TEST_F(ProgramTest, TabLeavesTheKeysToTheShortcuts) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // Tab hides and shows the panel; the digit after it picks variant 3 (fma4-sin), and does not go
  // into "max iterations" (where it became the iteration limit).
  const Result r =
      run_with_keys("--cpu --frames 400 --width 480 --height 270 --iters 64 --no-vsync", 1.0,
                    "Tab w150 Tab w150 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final view: variant fma4-sin,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", iters 64\n"), std::string::npos) << r.out;
}

TEST_F(ProgramTest, StateFilesThatAreFifosNeitherBlockNorGetReplaced) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const fs::path config = dir_ / "config" / "mandelpipe";
  fs::create_directories(config);
  for (const char* name : {"settings.json", "imgui.ini"})
    ASSERT_EQ(mkfifo((config / name).c_str(), 0600), 0) << name;
  // Opening a FIFO for reading waits for a writer: before, start-up hung here.
  const Result r = run("--cpu --frames 2 --width 320 --height 200 --iters 64");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("settings.json: not a regular file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("imgui.ini: not a regular file"), std::string::npos) << r.err;
  for (const char* name : {"settings.json", "imgui.ini"})
    EXPECT_TRUE(fs::is_fifo(config / name)) << name << " was replaced";
}

TEST_F(ProgramTest, UnreadableSettingsAreReportedAndKept) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  fs::create_directories(dir_ / "config" / "mandelpipe");
  const fs::path settings = dir_ / "config" / "mandelpipe" / "settings.json";
  std::ofstream(settings) << "{\"window_width\": 0";
  const Result r = run("--cpu --frames 2 --width 320 --height 200 --iters 64");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("ignoring"), std::string::npos) << r.err;
  // ... and at the end, that this session's settings were not saved.
  EXPECT_NE(r.err.find("settings not saved: settings.json was not read"), std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(settings), "{\"window_width\": 0");  // not overwritten
}

// A configuration folder that cannot be made (XDG_CONFIG_HOME names a file): said at the start
// and at the end, and the window runs.
TEST_F(ProgramTest, NoConfigurationFolderIsSaidAndTheWindowRuns) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  fs::remove_all(dir_ / "config");        // the folder run() gives as XDG_CONFIG_HOME,
  std::ofstream(dir_ / "config") << "x";  // a file
  const Result r = run("--cpu --frames 2 --width 320 --height 200 --iters 64");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("settings and bookmarks are not kept: no configuration folder (cannot make"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("settings not saved: no configuration folder"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

TEST_F(ProgramTest, BenchCsvRefusesTheOtherTables) {
  // Refused while parsing, before the GPU is looked for (that would exit 3).
  for (const char* extra : {"--sin-sweep", "--present", "--sin-sweep --present"})
    expect_one_line_error(run(std::string("bench --format csv ") + extra, "CUDA_VISIBLE_DEVICES="),
                          2, "--format json");
}

// RFC 4180, strictly: a quote opens a field, closes it or is doubled inside it, and every record
// ends with a line end. Anything else throws, failing the test that reads the table.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  enum class At { FieldStart, Bare, Quoted, QuoteInQuoted };
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  At at = At::FieldStart;
  for (const char c : text) {
    if (at == At::Quoted) {
      if (c == '"')
        at = At::QuoteInQuoted;
      else
        field += c;
      continue;
    }
    if (at == At::QuoteInQuoted && c == '"') {
      field += c;
      at = At::Quoted;
      continue;
    }
    if (c == ',' || c == '\n') {
      record.push_back(field);
      field.clear();
      at = At::FieldStart;
      if (c == '\n') {
        records.push_back(record);
        record.clear();
      }
      continue;
    }
    if (at == At::QuoteInQuoted) throw std::runtime_error("CSV: text after a closing quote");
    if (c == '"') {
      if (at == At::Bare) throw std::runtime_error("CSV: a quote inside an unquoted field");
      at = At::Quoted;
      continue;
    }
    field += c;
    at = At::Bare;
  }
  if (at != At::FieldStart || !record.empty())
    throw std::runtime_error("CSV: the last record has no line end");
  return records;
}

std::vector<std::string> header_fields(const char* header) {
  return parse_csv(std::string(header) + "\n").at(0);
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) throw std::runtime_error("no column '" + name + "'");
  return static_cast<std::size_t>(it - header.begin());
}

// The whole field as a finite number, or nothing ("nan", "12abc", " 1" and "" are not numbers).
std::optional<double> finite_number(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

// obj[key] as a number. JSON has no NaN or infinity (nlohmann writes them as null), so a
// number here is finite; anything else is a failure that names the key, and NaN, which fails
// every comparison after it.
double number_at(const nlohmann::json& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_number()) {
    ADD_FAILURE() << "'" << key << "' is not a number in " << obj.dump();
    return std::nan("");
  }
  return obj.at(key).get<double>();
}

std::string string_at(const nlohmann::json& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_string()) {
    ADD_FAILURE() << "'" << key << "' is not a string in " << obj.dump();
    return "";
  }
  return obj.at(key).get<std::string>();
}

const nlohmann::json& object_at(const nlohmann::json& obj, const std::string& key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  if (!obj.is_object() || !obj.contains(key) || !obj.at(key).is_object()) {
    ADD_FAILURE() << "'" << key << "' is not an object in " << obj.dump();
    return kEmpty;
  }
  return obj.at(key);
}

nlohmann::json parse_json(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) ADD_FAILURE() << "not JSON:\n" << text.substr(0, 2000);
  return j;
}

class ProgramGpuTest : public ProgramTest {
 protected:
  void SetUp() override {
    ProgramTest::SetUp();
    const DeviceProbe p = probe_cuda_device();
    if (!p.device) return skip_without_gpu(p.reason + " (bench and experiment need a CUDA GPU)");
  }
};

// launch-overhead has both kinds of row (measured only, and a prediction beside the
// measurement) and notes holding commas for the CSV's quoting; it takes under a second.
constexpr const char* kExperiment = "launch-overhead";

TEST_F(ProgramGpuTest, ExperimentJsonParsesBack) {
  const Result r = run(std::string("experiment ") + kExperiment + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = parse_json(r.out);
  ASSERT_TRUE(j.is_object()) << r.out.substr(0, 2000);
  EXPECT_EQ(string_at(j, "experiment"), kExperiment);
  for (const char* key : {"title", "device", "question", "model", "conclusion"})
    EXPECT_FALSE(string_at(j, key).empty()) << key;
  ASSERT_TRUE(j.contains("rows") && j["rows"].is_array()) << r.out.substr(0, 2000);
  ASSERT_FALSE(j["rows"].empty());
  int predicted_rows = 0;
  for (const nlohmann::json& row : j["rows"]) {
    EXPECT_FALSE(string_at(row, "label").empty()) << row.dump();
    EXPECT_FALSE(string_at(row, "unit").empty()) << row.dump();
    EXPECT_TRUE(row.contains("note") && row["note"].is_string()) << row.dump();
    const double measured = number_at(row, "measured");
    ASSERT_TRUE(row.contains("predicted") && row.contains("ratio")) << row.dump();
    if (row["predicted"].is_null()) {
      EXPECT_TRUE(row["ratio"].is_null()) << "a ratio without a prediction: " << row.dump();
      continue;
    }
    const double predicted = number_at(row, "predicted");
    ++predicted_rows;
    if (predicted == 0) {
      EXPECT_TRUE(row["ratio"].is_null()) << row.dump();
      continue;
    }
    EXPECT_DOUBLE_EQ(number_at(row, "ratio"), measured / predicted) << row.dump();
  }
  EXPECT_GT(predicted_rows, 0) << "no row with a prediction";
}

TEST_F(ProgramGpuTest, ExperimentCsvParsesBack) {
  const Result r = run(std::string("experiment ") + kExperiment + " --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::vector<std::string>> records = parse_csv(r.out);
  ASSERT_GE(records.size(), 2u) << r.out;
  const std::vector<std::string>& header = records[0];
  ASSERT_EQ(header, header_fields(kExperimentCsvHeader)) << r.out;
  const std::size_t experiment = column(header, "experiment"), label = column(header, "label"),
                    predicted = column(header, "predicted"), measured = column(header, "measured"),
                    unit = column(header, "unit"), ratio = column(header, "ratio");
  int predicted_rows = 0;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const std::vector<std::string>& f = records[i];
    ASSERT_EQ(f.size(), header.size()) << "record " << i << " of\n" << r.out;
    EXPECT_EQ(f[experiment], kExperiment);
    EXPECT_FALSE(f[label].empty()) << "record " << i;
    EXPECT_FALSE(f[unit].empty()) << f[label];
    const std::optional<double> m = finite_number(f[measured]);
    EXPECT_TRUE(m) << f[label] << ": measured '" << f[measured] << "'";
    if (f[predicted].empty()) {
      EXPECT_EQ(f[ratio], "") << f[label] << ": a ratio without a prediction";
      continue;
    }
    ++predicted_rows;
    const std::optional<double> p = finite_number(f[predicted]);
    ASSERT_TRUE(p) << f[label] << ": predicted '" << f[predicted] << "'";
    if (*p == 0) {
      EXPECT_EQ(f[ratio], "") << f[label];
      continue;
    }
    const std::optional<double> q = finite_number(f[ratio]);
    ASSERT_TRUE(q) << f[label] << ": ratio '" << f[ratio] << "'";
    // The ratio is written to 6 significant digits.
    if (m) EXPECT_NEAR(*q, *m / *p, 1e-5 * std::fabs(*m / *p)) << f[label];
  }
  EXPECT_GT(predicted_rows, 0) << "no row with a prediction";
}

// One variant at the three 4K views keeps a run to a few seconds on an H200.
constexpr const char* kBench = "bench --variant fma4 --frames 10";
const char* const kViews[] = {"A", "B", "C"};

TEST_F(ProgramGpuTest, BenchJsonParsesBack) {
  const Result r = run(std::string(kBench) + " --sin-sweep --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = parse_json(r.out);
  ASSERT_TRUE(j.is_object()) << r.out.substr(0, 2000);

  const nlohmann::json& device = object_at(j, "device");
  for (const char* key : {"name", "compute_capability", "pipe_rates", "instruction_mix"})
    EXPECT_FALSE(string_at(device, key).empty()) << key;
  EXPECT_GT(number_at(device, "sm_count"), 0);
  EXPECT_FALSE(j.contains("present")) << "present paths were not asked for";

  ASSERT_TRUE(j.contains("rows") && j["rows"].is_array()) << r.out.substr(0, 2000);
  ASSERT_EQ(j["rows"].size(), std::size(kViews));
  for (std::size_t i = 0; i < std::size(kViews); ++i) {
    const nlohmann::json& row = j["rows"][i];
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(string_at(row, "view"), kViews[i]);
    EXPECT_EQ(string_at(row, "variant"), "fma4");
    EXPECT_EQ(number_at(row, "width"), 3840);
    EXPECT_EQ(number_at(row, "height"), 2160);
    EXPECT_EQ(number_at(row, "frames"), 10);
    ASSERT_TRUE(row.contains("center") && row["center"].is_array() && row["center"].size() == 2);
    // Decimal strings, every digit the depth needs.
    ASSERT_TRUE(row["center"][0].is_string() && row["center"][1].is_string());
    EXPECT_TRUE(row["span"].is_string());
    EXPECT_GT(std::stod(row["span"].get<std::string>()), 0);
    EXPECT_GE(number_at(row, "iters"), 1);
    EXPECT_EQ(number_at(row, "pixels_differing_from_fma4"), 0) << "fma4 against itself";

    const nlohmann::json& measured = object_at(row, "measured");
    for (const char* key : {"kernel_ms", "sm_cycles", "pixel_iters", "warp_iters"})
      EXPECT_GT(number_at(measured, key), 0) << key;
    EXPECT_GT(number_at(measured, "sm_cycles_mean"), 0);
    EXPECT_EQ(string_at(measured, "tile_order"), "cost");
    const double kernel_ms = number_at(measured, "kernel_ms");
    const double sm_cycles = number_at(measured, "sm_cycles");

    // What is derived is derived from what the same object says was measured.
    const nlohmann::json& derived = object_at(row, "derived");
    EXPECT_DOUBLE_EQ(number_at(derived, "clock_ghz"), sm_cycles / (kernel_ms * 1e6));
    for (const char* share : {"simt_efficiency", "sm_balance"}) {
      EXPECT_GT(number_at(derived, share), 0) << share;
      EXPECT_LE(number_at(derived, share), 1) << share;
    }
    const nlohmann::json& model = object_at(row, "model");
    const double bound = number_at(model, "bound_max_cycles");
    EXPECT_GT(bound, 0);
    EXPECT_GE(number_at(model, "bound_sum_cycles"), bound);
    EXPECT_FALSE(string_at(model, "limiting_pipe").empty());
    EXPECT_DOUBLE_EQ(number_at(model, "pct_of_bound"), 100 * (bound / sm_cycles));
  }

  ASSERT_TRUE(j.contains("sine_sweep") && j["sine_sweep"].is_array()) << r.out.substr(0, 2000);
  ASSERT_EQ(j["sine_sweep"].size(), variants::kMaxSweepSines + 1u);
  for (std::size_t k = 0; k < j["sine_sweep"].size(); ++k) {
    const nlohmann::json& row = j["sine_sweep"][k];
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(number_at(row, "sines_per_step"), static_cast<double>(k));
    const nlohmann::json& mix = object_at(row, "mix_per_step");
    for (const char* pipe : {"fma", "alu", "other"}) EXPECT_GE(number_at(mix, pipe), 0) << pipe;
    EXPECT_EQ(number_at(mix, "xu"), static_cast<double>(k)) << "one MUFU per __sinf";
    EXPECT_TRUE(mix.contains("from_sass") && mix["from_sass"].is_boolean());
    EXPECT_GT(number_at(row, "warp_steps"), 0);
    const double cycles = number_at(row, "measured_sm_cycles");
    const double bound = number_at(row, "bound_max_cycles");
    EXPECT_GT(cycles, 0);
    EXPECT_GT(bound, 0);
    EXPECT_FALSE(string_at(row, "limiting_pipe").empty());
    EXPECT_DOUBLE_EQ(number_at(row, "pct_of_bound"), 100 * bound / cycles);
    for (const char* busy :
         {"xu_busy_measured", "issue_busy_measured", "xu_busy_predicted", "issue_busy_predicted"})
      EXPECT_GE(number_at(row, busy), 0) << busy;
  }
  const nlohmann::json& balance = object_at(j, "sine_balance");
  for (const char* key : {"measured", "predicted"}) {
    EXPECT_GE(number_at(balance, key), 0) << key;
    EXPECT_LE(number_at(balance, key), variants::kMaxSweepSines) << key;
  }
}

// bench --counters: every row carries the counters' columns, and they parse back. Where the
// counters cannot be read (no profiling permission, say), the note says why and the values are
// empty: that run checks the shape, and says so.
TEST_F(ProgramGpuTest, BenchCounterColumnsParseBack) {
  const std::string bench = "bench --variant fma4 --frames 10 --counters";
  const Result j = run(bench + " --format json");
  ASSERT_EQ(j.code, 0) << j.err;
  const nlohmann::json doc = parse_json(j.out);
  ASSERT_TRUE(doc.contains("rows") && doc["rows"].is_array() && doc["rows"].size() == 3);
  bool readable = true;
  for (const nlohmann::json& row : doc["rows"]) {
    SCOPED_TRACE(row.dump());
    const nlohmann::json& c = object_at(row, "counters");
    ASSERT_TRUE(c.contains("unavailable"));
    if (c["unavailable"].is_string()) {
      readable = false;
      continue;
    }
    const nlohmann::json& pipes = object_at(c, "pipes");
    for (const char* pipe : {"FMA", "ALU", "XU", "issue", "SM active"}) {
      EXPECT_GE(number_at(pipes, pipe), 0) << pipe;
      EXPECT_LE(number_at(pipes, pipe), 101) << pipe;
    }
    EXPECT_GT(number_at(c, "clock_ghz"), 0.3);
    EXPECT_GT(number_at(c, "samples"), 0);
    EXPECT_GT(number_at(c, "warp_instructions"), 0);
    // fma4 is issue-bound on every view: its counted issue is near the model's issue share.
    EXPECT_GT(number_at(pipes, "issue"), 50);
  }
  const Result csv = run(bench + " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::vector<std::vector<std::string>> records = parse_csv(csv.out);
  ASSERT_EQ(records.size(), 4u) << csv.out;
  const std::vector<std::string>& header = records[0];
  for (const char* name : {"ctr_FMA", "ctr_issue", "ctr_XU", "ctr_clock_ghz", "ctr_note"})
    EXPECT_NO_THROW(column(header, name)) << name;
  for (std::size_t i = 1; i < records.size(); ++i) {
    ASSERT_EQ(records[i].size(), header.size());
    // Each run reads the counters afresh: a row of this run is either read (no note, numbers)
    // or withheld with the reason (a note, no numbers), whatever the JSON run found.
    const std::string& note = records[i][column(header, "ctr_note")];
    if (!note.empty()) {
      EXPECT_EQ(records[i][column(header, "ctr_issue")], "") << note;
      continue;
    }
    EXPECT_TRUE(finite_number(records[i][column(header, "ctr_issue")])) << csv.out;
    EXPECT_TRUE(finite_number(records[i][column(header, "ctr_FMA")])) << csv.out;
  }
  if (!readable)
    GTEST_SKIP() << "counters not readable here: " << doc["rows"][0]["counters"].dump();
}

// The whole-kernel model (docs/model.md, "The whole kernel") against the counters, every plain
// variant at one view where short and long orbits meet (view A's place, 1920x1080): the model's
// instructions within 3% of those the counters counted (lane refill's by a simulation of its
// warps). Where the counters cannot be read it checks that each row has the model's figures, and
// skips saying why.
TEST_F(ProgramGpuTest, WholeKernelModelMeetsTheCounters) {
  const Result r =
      run("bench --variant all --view -0.5,0,3,1024 --width 1920 --height 1080 "
          "--frames 10 --counters --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = parse_json(r.out);
  ASSERT_TRUE(doc.contains("rows") && doc["rows"].is_array());
  bool readable = true;
  int plain = 0;
  for (const nlohmann::json& row : doc["rows"]) {
    const std::string variant = row["variant"].get<std::string>();
    const auto id = find_variant(variant);
    ASSERT_TRUE(id) << variant;
    if (variant_info(*id).perturbation) continue;
    ++plain;
    SCOPED_TRACE(variant);
    const nlohmann::json& w = object_at(row, "whole_kernel");
    // Lane refill too: its trips and rounds from a simulation of its warps, and it says so.
    if (*id == VariantId::Fma4Refill) {
      ASSERT_TRUE(w.contains("unplaced")) << w.dump();
      EXPECT_NE(w["unplaced"].dump().find("a simulation's"), std::string::npos) << w.dump();
    }
    ASSERT_FALSE(w.contains("unusable")) << w.dump();
    const double model = number_at(w, "instructions");
    EXPECT_GT(model, 0);
    const nlohmann::json& c = object_at(row, "counters");
    if (c["unavailable"].is_string()) {
      readable = false;
      continue;
    }
    const double counted = number_at(c, "warp_instructions");
    EXPECT_NEAR(model / counted, 1.0, 0.03)
        << "model " << model << ", counters " << counted << "; parts " << w["parts"].dump();
  }
  EXPECT_EQ(plain,
            static_cast<int>(std::count_if(all_variants().begin(), all_variants().end(),
                                           [](const VariantInfo& v) { return !v.perturbation; })));
  if (!readable)
    GTEST_SKIP() << "counters not readable here: " << doc["rows"][0]["counters"].dump();
}

TEST_F(ProgramGpuTest, BenchCsvParsesBack) {
  const Result r = run(std::string(kBench) + " --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::vector<std::string>> records = parse_csv(r.out);
  ASSERT_FALSE(records.empty()) << r.out;
  const std::vector<std::string>& header = records[0];
  ASSERT_EQ(header, header_fields(kBenchCsvHeader)) << r.out;
  for (std::size_t i = 1; i < records.size(); ++i)
    ASSERT_EQ(records[i].size(), header.size()) << "record " << i << " of\n" << r.out;
  ASSERT_EQ(records.size(), 1 + std::size(kViews)) << r.out;
  const std::set<std::string> text = {"view", "variant", "tile_order", "limiting_pipe"};
  for (std::size_t i = 1; i < records.size(); ++i) {
    const std::vector<std::string>& f = records[i];
    for (std::size_t c = 0; c < header.size(); ++c)
      if (text.count(header[c]))
        EXPECT_FALSE(f[c].empty()) << header[c];
      else
        EXPECT_TRUE(finite_number(f[c])) << header[c] << " = '" << f[c] << "'";
    auto number = [&](const char* name) {
      return finite_number(f[column(header, name)]).value_or(std::nan(""));
    };
    EXPECT_EQ(f[column(header, "view")], kViews[i - 1]);
    EXPECT_EQ(f[column(header, "variant")], "fma4");
    EXPECT_EQ(f[column(header, "tile_order")], "cost");
    EXPECT_EQ(number("width"), 3840);
    EXPECT_EQ(number("frames"), 10);
    EXPECT_EQ(number("pixels_differing_from_fma4"), 0);
    // Derived columns against the measured ones beside them, within the digits written.
    const double clock = number("sm_cycles") / (number("kernel_ms") * 1e6);
    EXPECT_NEAR(number("clock_ghz"), clock, 1e-3 * clock);
    EXPECT_NEAR(number("pct_of_bound"), 100 * number("bound_max_cycles") / number("sm_cycles"),
                0.01);
  }
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// A user's own places: keys pressed at a CPU window that Escape ends (3000 frames
// end it should a key be lost); the --frames summary says where it ended. The view is not the
// default one, so it is not moved beside the panel.
constexpr const char* kPlacesWindow =
    "--cpu --frames 3000 --width 480 --height 270 --center -0.6,0 --span 3 --iters 64 "
    "--no-vsync";

TEST_F(ProgramTest, LCyclesThePalette) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const Result still = run_with_keys(kPlacesWindow, 1.0, "Escape");
  ASSERT_EQ(still.code, 0) << still.err;
  EXPECT_NE(still.out.find("final colour: palette ember,"), std::string::npos) << still.out;
  const Result r = run_with_keys(kPlacesWindow, 1.0, "l w200 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final colour: palette "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("final colour: palette ember,"), std::string::npos) << r.out;
}

// Automatic precision: the view fills the 255 pixels beside the panel of a 480-pixel window, where
// float tells pixels apart down to a span of about 6.5e-5 here; one zoom in from 7e-5 passes it,
// and the CPU path renders with fp64 instead.
TEST_F(ProgramTest, ZoomingPastFloatRendersWithFp64UnlessPinned) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const std::string window =
      "--cpu --frames 3000 --width 480 --height 270 --center -0.75,0.1 --span 7e-5 --iters 64 "
      "--no-vsync";
  const Result still = run_with_keys(window, 1.0, "Escape");
  ASSERT_EQ(still.code, 0) << still.err;
  EXPECT_NE(still.out.find("final view: variant fma4,"), std::string::npos) << still.out;
  const Result deeper = run_with_keys(window, 1.0, "equal w300 Escape");
  ASSERT_EQ(deeper.code, 0) << deeper.err;
  EXPECT_NE(deeper.out.find("final view: variant fp64,"), std::string::npos) << deeper.out;
  // Zooming out with room to spare returns to the user's own.
  const Result back =
      run_with_keys(window, 1.0, "equal w300 minus w300 minus w300 minus w300 Escape");
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_NE(back.out.find("final view: variant fma4,"), std::string::npos) << back.out;
  // K pins it (kept in the settings, so last here).
  const Result pinned = run_with_keys(window, 1.0, "equal w300 k w300 Escape");
  ASSERT_EQ(pinned.code, 0) << pinned.err;
  EXPECT_NE(pinned.out.find("final view: variant fma4,"), std::string::npos) << pinned.out;
}

TEST_F(ProgramTest, BackspaceGoesBackAfterAZoom) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // The first zoom (span 2) stays long enough to be kept; Backspace leaves the second (1.333).
  const Result r = run_with_keys(kPlacesWindow, 1.0, "equal w800 equal w100 BackSpace w200 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final view: variant fma4, center -0.6,0, span 2, iters 64\n"),
            std::string::npos)
      << r.out;
  // Alt+Left goes back as well, and Alt+Right forward again; plain arrows still pan.
  const Result f =
      run_with_keys(kPlacesWindow, 1.0, "equal w800 alt+Left w100 alt+Right w100 Escape");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_NE(f.out.find("final view: variant fma4, center -0.6,0, span 2, iters 64\n"),
            std::string::npos)
      << f.out;
}

TEST_F(ProgramTest, CopyThenPasteKeepsTheView) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // Between the copy and the paste: a zoom, a pan, another palette and another variant.
  const Result r = run_with_keys(
      kPlacesWindow, 1.0, "ctrl+c w100 equal w100 Right w100 l w100 3 w100 ctrl+v w200 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final view: variant fma4, center -0.6,0, span 3, iters 64\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("final colour: palette ember,"), std::string::npos) << r.out;
}

TEST_F(ProgramTest, BSavesABookmarkAndTypingTakesNoShortcut) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // "l", "p" and "c" go into the name, not to the palette, the overlay and compare.
  const Result r =
      run_with_keys(kPlacesWindow, 1.0, "b w300 m y space p l a c e w100 Return w300 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final colour: palette ember,"), std::string::npos) << r.out;
  const nlohmann::json saved =
      nlohmann::json::parse(slurp(dir_ / "config" / "mandelpipe" / "bookmarks.json"));
  ASSERT_EQ(saved["bookmarks"].size(), 1u) << saved.dump();
  EXPECT_EQ(saved["bookmarks"][0]["name"], "my place");
  EXPECT_EQ(saved["bookmarks"][0]["span"], "3");
}

TEST_F(ProgramTest, WindowTakesTheColourFlags) {
  if (!has_display()) GTEST_SKIP() << "no DISPLAY (scripts/test.sh runs this under Xvfb)";
  const Result r =
      run("--cpu --frames 2 --width 320 --height 200 --iters 64 --density 2 "
          "--offset 0.25");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("final colour: palette ember, density 2, offset 0.25, stripe 0.6\n"),
            std::string::npos)
      << r.out;
  expect_one_line_error(run("--cpu --frames 2 --stripe 2"), 2, "--stripe");
}

}  // namespace
}  // namespace mp

#include <chrono>

namespace mp {
namespace {

// Responsive at any cost per frame: a CPU frame of many seconds is rendered a slice
// per window frame, so keys take effect and Escape ends the window long before it is done.
TEST_F(ProgramTest, AHeavyCpuFrameLeavesTheWindowAnswering) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  // A third of the pixels never escape: some 3e10 iterations a frame, far beyond this run.
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_with_keys(
      "--cpu --frames 100000 --width 1280 --height 720 --center -0.6,0 --span 3 --iters 100000 "
      "--no-vsync",
      1.5, "1 w300 Escape");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.code, 0) << r.err;
  // The variant key was taken, and the frame it restarted, like the first, never finished.
  EXPECT_NE(r.out.find("final view: variant fma5,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(no frame finished)"), std::string::npos) << r.out;
  // Escape ended it at once, and the window kept drawing meanwhile.
  EXPECT_LT(s, 1.5 + 0.3 + 3.0) << r.out;
  const std::size_t at = r.out.find("frames ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_GE(std::stol(r.out.substr(at + 7)), 10) << r.out;
}

// The CUDA path's twin: view C at 2,000,000 iterations, in launches of one wave
// (a block per SM) each, one per window frame. fma4-x16, whose warp of inside pixels takes
// less than the 20 ms bound at this limit (docs/architecture.md: the queue's variants take
// longer, and no split into tiles brings them under it).
TEST_F(ProgramTest, AHeavyGpuFrameLeavesTheWindowAnsweringInBoundedLaunches) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const DeviceProbe p = probe_cuda_device();
  if (!p.device) return skip_without_gpu(p.reason + " (the bounded launches are the CUDA path's)");
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_with_keys(
      "--frames 100000 --width 1280 --height 720 --center -0.75,0 --span 0.05 --iters 2000000 "
      "--variant fma4-x16 --no-vsync",
      3.0, "l w1000 Escape");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.code, 0) << r.err;
  // L (the next palette) was taken while a frame refined.
  EXPECT_NE(r.out.find("final colour: palette ocean,"), std::string::npos) << r.out;
  // Escape ended it at once, not after the frame in flight.
  EXPECT_LT(s, 3.0 + 1.0 + 3.0) << r.out;
  // The window drew at 30 fps or more throughout, and no launch passed the 20 ms bound.
  const std::size_t frame = r.out.find("mean frame "), launch = r.out.find("longest launch ");
  ASSERT_NE(frame, std::string::npos) << r.out;
  ASSERT_NE(launch, std::string::npos) << r.out;
  EXPECT_LT(std::stod(r.out.substr(frame + 11)), 1000.0 / 30) << r.out;
  const double longest = std::stod(r.out.substr(launch + 15));
  EXPECT_GT(longest, 0.0) << r.out;
  EXPECT_LE(longest, 20.0) << r.out;
}

// F12 on the CUDA path writes its files once every variant is compared at the view; Escape before
// that writes them without the table, saying why, rather than losing the picture.
TEST_F(ProgramTest, ACaptureWhoseCompareIsCutByEscapeIsWrittenWithoutIt) {
  if (const std::string why = no_window_keys(); !why.empty()) GTEST_SKIP() << why;
  const DeviceProbe p = probe_cuda_device();
  if (!p.device) return skip_without_gpu(p.reason + " (F12's compare times the CUDA variants)");
  // Deep enough in iterations that fifteen variants take far longer than the second given.
  const Result r = run_with_keys(
      "--frames 100000 --width 1280 --height 720 --center -0.75,0 --span 0.05 --iters 2000000 "
      "--no-vsync" +
          capture_dir(),
      0.0, "window mandelpipe w1000 F12 w1000 Escape");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::optional<fs::path> sidecar = file_ending(".json"), shot = file_ending(".png");
  ASSERT_TRUE(sidecar && shot) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(*sidecar));
  EXPECT_EQ(j.at("compare"),
            "not taken: stopped: the window closed before every variant was timed");
  EXPECT_NE(r.out.find("wrote " + shot->string()), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mp
