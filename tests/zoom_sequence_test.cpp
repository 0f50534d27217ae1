// Zoom sequences as a user runs them (CPU path): interrupted, resumed, resumed with other
// parameters, written by two runs at once, and frames.json as the last file written.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "program_runner.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

using program::Result;
using program::stamp;
using program::Stamp;

// Frames heavy enough (deep interior at 20000 iterations) that a signal lands between them.
const std::string kSlow =
    "render --cpu --width 160 --height 120 --iters 20000 --center -0.5,0 --span 3 "
    "--zoom-to -0.7435,0.1314,0.003 --frames 24 --out seq";
constexpr int kSlowFrames = 24;

class ZoomSequenceTest : public program::FolderTest {
 protected:
  std::string command(const std::string& args, const std::string& tag = "") const {
    return "cd '" + dir_.string() + "' && exec '" + program::binary() + "' " + args + " >'" +
           (dir_ / (".stdout" + tag)).string() + "' 2>'" + (dir_ / (".stderr" + tag)).string() +
           "' </dev/null";
  }
  Result run(const std::string& args) {
    return program::result_of(std::system(command(args).c_str()), dir_ / ".stdout",
                              dir_ / ".stderr");
  }
  // Started in the background; its process id.
  pid_t start(const std::string& args) {
    const pid_t pid = fork();
    if (pid == 0) {
      ::signal(SIGINT, SIG_DFL);
      execl("/bin/sh", "sh", "-c", command(args, "-bg").c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }
  Result finish(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return program::result_of(status, dir_ / ".stdout-bg", dir_ / ".stderr-bg");
  }
  // The images frames.json lists (none while it is missing or being replaced), with those its
  // journal lists, where a long sequence has one.
  std::set<std::string> listed() const {
    const auto j =
        nlohmann::json::parse(program::slurp(dir_ / "seq" / "frames.json"), nullptr, false);
    std::set<std::string> names;
    if (j.is_object() && j.contains("frames"))
      for (const auto& f : j["frames"]) names.insert(f["image"].get<std::string>());
    std::ifstream journal(dir_ / "seq" / "frames.journal");
    for (std::string line; std::getline(journal, line);)
      names.insert(nlohmann::json::parse(line).at("image").get<std::string>());
    return names;
  }
  std::set<std::string> on_disk() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "seq"))
      if (e.path().filename().string().rfind("frame-", 0) == 0)
        names.insert(e.path().filename().string());
    return names;
  }
  // Polled until frames.json lists at least `n` frames or `pid` ends; whether it did.
  bool wait_for_listed(pid_t pid, std::size_t n) {
    for (int i = 0; i < 6000; ++i) {
      if (listed().size() >= n) return true;
      if (waitpid(pid, nullptr, WNOHANG) != 0) return false;
      usleep(5000);
    }
    return false;
  }
  void expect_one_line_error(const Result& r, const std::string& fragment) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
};

bool later_or_same(const timespec& a, const timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec >= b.tv_nsec;
}

TEST_F(ZoomSequenceTest, InterruptedSequenceListsItsFramesAndResumeRendersOnlyTheRest) {
  const pid_t pid = start(kSlow);
  ASSERT_TRUE(wait_for_listed(pid, 2)) << "frames.json never listed two frames";
  kill(pid, SIGINT);
  const Result stopped = finish(pid);
  ASSERT_EQ(stopped.signal, SIGINT) << "exit " << stopped.code << ": " << stopped.err;
  const std::set<std::string> kept = listed();
  EXPECT_EQ(kept, on_disk()) << "frames.json is not true to the folder";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "seq"), fs::directory_iterator()),
            static_cast<std::ptrdiff_t>(kept.size() + 1))
      << "more than the frames and frames.json";
  ASSERT_GE(kept.size(), 2u);
  ASSERT_LT(kept.size(), static_cast<std::size_t>(kSlowFrames)) << "it had finished";
  std::map<std::string, Stamp> before;
  for (const std::string& f : kept) before[f] = stamp(dir_ / "seq" / f);

  const Result resumed = run(kSlow + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("--resume: " + std::to_string(kept.size()) +
                             " of 24 frames already "
                             "whole"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(on_disk().size(), static_cast<std::size_t>(kSlowFrames));
  EXPECT_EQ(listed(), on_disk());
  for (const auto& [f, s] : before) {  // the same files, not written again
    const Stamp now = stamp(dir_ / "seq" / f);
    EXPECT_EQ(now.inode, s.inode) << f;
    EXPECT_EQ(now.mtime.tv_sec, s.mtime.tv_sec) << f;
    EXPECT_EQ(now.mtime.tv_nsec, s.mtime.tv_nsec) << f;
  }
  // The interrupted run is kept among the earlier ones: its start, and that it stopped.
  const nlohmann::json resumed_listing =
      nlohmann::json::parse(program::slurp(dir_ / "seq" / "frames.json"));
  ASSERT_EQ(resumed_listing.at("earlier_runs").size(), 1u) << resumed_listing.dump();
  EXPECT_TRUE(resumed_listing["earlier_runs"][0].at("run_started").is_string());
  EXPECT_NE(resumed_listing["earlier_runs"][0].at("ended").get<std::string>().find("stopped"),
            std::string::npos);
  // Nothing left to render: a further --resume keeps every frame.
  const Result again = run(kSlow + " --resume");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("24 of 24 frames already whole"), std::string::npos) << again.err;
  // Its record says no pipeline ran: no start-up step is a time before the process began.
  const nlohmann::json startup =
      nlohmann::json::parse(program::slurp(dir_ / "seq" / "frames.json"))["run"]["startup"];
  for (const char* step : {"pipeline_entered_ms", "pool_ready_ms"})
    EXPECT_TRUE(startup[step].is_null() || startup[step].get<double>() >= 0) << step << startup;
}

// SIGKILL (or a power cut) leaves the frame being written as a temporary file; --resume removes
// it, says so, and the folder holds the sequence and nothing else.
TEST_F(ZoomSequenceTest, ResumeAfterAKillRemovesWhatTheKilledRunLeft) {
  // Killed (the test hook) with its second frame whole in its temporary file, not yet renamed:
  // a frame is written in a few milliseconds, too briefly for a signal from here to land in.
  setenv("MANDELPIPE_TEST_KILL_RANK", "0:1:part", 1);
  const int killed = std::system(command(kSlow, "-killed").c_str());
  unsetenv("MANDELPIPE_TEST_KILL_RANK");
  ASSERT_NE(killed, 0);
  // The frame it died over, and any a pool thread had encoded ahead of it.
  std::vector<std::string> stale;
  for (const auto& e : fs::directory_iterator(dir_ / "seq"))
    if (e.path().filename().string().find(".part-") != std::string::npos)
      stale.push_back(e.path().filename().string());
  ASSERT_FALSE(stale.empty()) << "no frame under way";
  EXPECT_EQ(listed().size(), 1u);
  const Result resumed = run(kSlow + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const std::string removed = "mandelpipe: removed " + std::to_string(stale.size()) +
                              (stale.size() == 1 ? " unfinished file" : " unfinished files") +
                              " that stopped runs left: ";
  const std::size_t line = resumed.err.find(removed);
  ASSERT_NE(line, std::string::npos) << resumed.err;
  const std::string said = resumed.err.substr(line, resumed.err.find('\n', line) - line);
  for (const std::string& f : stale) EXPECT_NE(said.find("seq/" + f), std::string::npos) << said;
  EXPECT_EQ(on_disk().size(), static_cast<std::size_t>(kSlowFrames));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "seq"), fs::directory_iterator()),
            kSlowFrames + 1)
      << "more than the frames and frames.json";
}

TEST_F(ZoomSequenceTest, ResumeWithOtherParametersIsRefused) {
  const std::string common =
      "render --cpu --height 24 --center -0.5,0 --span 3 --frames 3 "
      "--out seq --zoom-to -0.7,0.1,0.1";
  ASSERT_EQ(run(common + " --width 32").code, 0);
  const std::string json = program::slurp(dir_ / "seq" / "frames.json");
  const Result other = run(common + " --width 40 --resume");
  expect_one_line_error(other, "--resume:");
  EXPECT_NE(other.err.find("width 32 there, 40 here"), std::string::npos) << other.err;
  expect_one_line_error(run(common + " --width 32 --iters 99 --resume"), "iters");
  // Without --resume the folder is refused too, the message naming --resume.
  expect_one_line_error(run(common + " --width 32"), "--resume");
  EXPECT_EQ(program::slurp(dir_ / "seq" / "frames.json"), json);
  EXPECT_EQ(on_disk().size(), 3u);
  // A folder that is not there has nothing to complete: a mistyped name starts no new sequence.
  const std::string typo =
      "render --cpu --width 32 --height 24 --frames 3 --out sqe "
      "--zoom-to -0.7,0.1,0.1 --resume";
  expect_one_line_error(run(typo), "--resume: sqe does not exist");
  EXPECT_FALSE(fs::exists(dir_ / "sqe"));
  // A listing that is not JSON says so.
  std::ofstream(dir_ / "seq" / "frames.json") << "{garbage";
  expect_one_line_error(run(common + " --width 32 --resume"), "frames.json is not valid JSON");
}

TEST_F(ZoomSequenceTest, ASecondRunIntoABusyFolderIsRefused) {
  const pid_t pid = start(kSlow);
  const bool began = wait_for_listed(pid, 1);
  const Result second = run(kSlow);
  const Result resuming = run(kSlow + " --resume");
  kill(pid, SIGINT);
  finish(pid);
  ASSERT_TRUE(began) << "the first run ended before a frame";
  expect_one_line_error(second, "another mandelpipe is writing it");
  expect_one_line_error(resuming, "another mandelpipe is writing it");
  EXPECT_EQ(listed(), on_disk());
}

// Past a few hundred frames frames.json is no longer rewritten with each frame (that grew with the
// square of the frames): the entries go to frames.journal, a line each, until it holds an eighth
// as many as frames.json. Killed, the two list the frames on disk; resumed, frames.json lists them
// all, as nlohmann::json writes it, and the journal is gone.
TEST_F(ZoomSequenceTest, ALongSequenceListsItsFramesThroughAJournal) {
  const std::string args =
      "render --cpu --width 8 --height 8 --iters 64 --zoom-to -0.7436,0.1318,0.001 --frames 800 "
      "--out seq";
  setenv("MANDELPIPE_TEST_KILL_RANK", "0:700", 1);
  const int killed = std::system(command(args, "-killed").c_str());
  unsetenv("MANDELPIPE_TEST_KILL_RANK");
  ASSERT_NE(killed, 0);
  EXPECT_EQ(on_disk().size(), 700u);
  EXPECT_EQ(listed(), on_disk());
  const Result resumed = run(args + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("--resume: 700 of 800 frames already whole"), std::string::npos)
      << resumed.err;
  EXPECT_FALSE(fs::exists(dir_ / "seq" / "frames.journal"));
  const std::string text = program::slurp(dir_ / "seq" / "frames.json");
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(text, j.dump(2) + "\n") << "not as nlohmann::json writes it";
  ASSERT_EQ(j["frames"].size(), 800u);
  for (std::size_t k = 0; k < 800; ++k) ASSERT_EQ(j["frames"][k]["frame"], k);
  // The 100 frames rendered: frames.json written at the start, at the end and a few times
  // between, where once a frame it had been 102 times.
  const nlohmann::json& writes = j["run"]["frames_json"];
  EXPECT_LT(writes["writes"].get<int>(), 10) << writes;
  EXPECT_GT(writes["journal_lines"].get<int>(), 90) << writes;
}

// --auto-iters on in a sequence: each frame's limit from a preview of it, rising as the zoom goes
// deeper into seahorse valley, each frame's in frames.json and the flag among the parameters.
TEST_F(ZoomSequenceTest, AutomaticIterationsRiseWithTheZoomsDepth) {
  const Result r =
      run("render --cpu --width 48 --height 27 --iters 64 --auto-iters on --center -0.75,0 "
          "--span 3 --zoom-to -0.743643887,0.131825904,1e-7 --frames 8 --out seq");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("mandelpipe: automatic iterations: "), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(program::slurp(dir_ / "seq" / "frames.json"));
  EXPECT_EQ(j["parameters"]["auto_iters"], true);
  ASSERT_EQ(j["frames"].size(), 8u);
  for (std::size_t k = 1; k < 8; ++k)
    EXPECT_GE(j["frames"][k]["iters"], j["frames"][k - 1]["iters"]) << k;
  EXPECT_GT(j["frames"][7]["iters"].get<unsigned>(), 4 * j["frames"][0]["iters"].get<unsigned>());
}

// Frames whose every pixel reached the limit (a limit too low for the depth) are named on
// stderr, as a still's is; with a limit that frees them, none is.
TEST_F(ZoomSequenceTest, FramesOfOneColourAtTheLimitAreSaid) {
  const std::string zoom =
      "render --cpu --width 48 --height 27 --center -0.75,0 --span 3 "
      "--zoom-to -0.743643887037158,0.131825904205312,1e-14 --frames 6 ";
  const Result low = run(zoom + "--iters 200 --out low");
  ASSERT_EQ(low.code, 0) << low.err;
  EXPECT_NE(low.err.find("frames rendered (frame-00003.png to frame-00005.png) every pixel "
                         "reached its limit"),
            std::string::npos)
      << low.err;
  const Result high = run(zoom + "--iters 30000 --out high");
  ASSERT_EQ(high.code, 0) << high.err;
  EXPECT_EQ(high.err.find("reached its limit"), std::string::npos) << high.err;
}

// A frame cut short or emptied after it was written (a crash before its data reached the disk, an
// edit) is not whole, a PNG or an EXR: --resume renders it again.
TEST_F(ZoomSequenceTest, ResumeRendersAgainAFrameCutShort) {
  const std::string args =
      "render --cpu --width 32 --height 24 --iters 100 --center -0.5,0 --span 3 "
      "--zoom-to -0.7,0.1,0.1 --frames 4 --exr-frames --out seq";
  ASSERT_EQ(run(args).code, 0);
  const fs::path cut = dir_ / "seq" / "frame-00001.png", empty = dir_ / "seq" / "frame-00002.png",
                 exr = dir_ / "seq" / "frame-00003.exr";
  const auto size = fs::file_size(cut), exr_size = fs::file_size(exr);
  fs::resize_file(cut, 100);
  fs::resize_file(empty, 0);
  fs::resize_file(exr, exr_size / 2);  // its table of blocks whole, its last blocks gone
  const Result resumed = run(args + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("--resume: 1 of 4 frames already whole"), std::string::npos)
      << resumed.err;
  EXPECT_EQ(fs::file_size(cut), size);
  EXPECT_GT(fs::file_size(empty), 100u);
  EXPECT_EQ(fs::file_size(exr), exr_size);
}

// A resume keeps the records of the runs before it: one that finds every frame whole renders
// none and says so in its own record, beside the first run's totals.
TEST_F(ZoomSequenceTest, AResumeKeepsTheEarlierRunsRecords) {
  const std::string args =
      "render --cpu --width 32 --height 24 --iters 100 --center -0.5,0 --span 3 "
      "--zoom-to -0.7,0.1,0.1 --frames 3 --out seq";
  ASSERT_EQ(run(args).code, 0);
  const Result again = run(args + " --resume");
  ASSERT_EQ(again.code, 0) << again.err;
  const Result third = run(args + " --resume");
  ASSERT_EQ(third.code, 0) << third.err;
  const nlohmann::json j = nlohmann::json::parse(program::slurp(dir_ / "seq" / "frames.json"));
  EXPECT_EQ(j.at("run").at("frames_rendered"), 0);
  ASSERT_EQ(j.at("earlier_runs").size(), 2u) << j.dump();
  EXPECT_EQ(j["earlier_runs"][0].at("frames_rendered"), 3);
  EXPECT_EQ(j["earlier_runs"][1].at("frames_rendered"), 0);
  EXPECT_TRUE(j["earlier_runs"][0].at("run_started").is_string());
  EXPECT_EQ(j.at("frames").size(), 3u);
}

TEST_F(ZoomSequenceTest, FramesJsonIsTheLastFileWritten) {
  const Result r =
      run("render --cpu --width 64 --height 48 --iters 20000 --center -0.5,0 --span 3 "
          "--zoom-to -0.75,0.1,0.5 --frames 3 --out seq");
  ASSERT_EQ(r.code, 0) << r.err;
  const timespec json = stamp(dir_ / "seq" / "frames.json").mtime;
  for (const std::string& f : on_disk())
    EXPECT_TRUE(later_or_same(json, stamp(dir_ / "seq" / f).mtime)) << f << " after frames.json";
  EXPECT_FALSE(later_or_same(stamp(dir_ / "seq" / "frame-00000.png").mtime, json))
      << "frames.json written before the first frame";
  EXPECT_EQ(listed().size(), 3u);
}

}  // namespace
}  // namespace mp
