// render through MPI's ranks, as a user runs it with mpirun (Open MPI, three ranks on this host,
// the CPU path): a sequence and a banded still the same as one process's, byte for byte, and a
// sequence whose rank died completed by --resume without rendering its frames again.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "exr_values.h"
#include "png_image.h"
#include "program_runner.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

using program::Result;
using program::slurp;
using program::stamp;
using program::Stamp;

class RenderMpiTest : public program::FolderTest {
 protected:
  // `args` run by `ranks` processes of mpirun (more than this host's cores allowed; as root
  // where the tests run as root, as CI's containers do), with `env` (NAME=VALUE ...) passed on,
  // and mpirun's `options`.
  Result mpirun(int ranks, const std::string& args, const std::string& env = "",
                const std::string& options = "") {
    std::string line = "env " + env + " " MP_MPIEXEC " -np " + std::to_string(ranks) +
                       " --oversubscribe --mca btl_vader_single_copy_mechanism none " + options;
    if (geteuid() == 0) line += " --allow-run-as-root";
    if (!env.empty()) line += " -x " + env.substr(0, env.find('='));
    return run_line(line + " '" + program::binary() + "' " + args);
  }
  Result run(const std::string& args) { return run_line("'" + program::binary() + "' " + args); }
  // Every PNG of `a` has the pixels of the one of the same name in `b` (level 1's encoder, ISA-L,
  // does not always give the same bytes for them); how many.
  int expect_same_pngs(const fs::path& a, const fs::path& b) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_ / a)) {
      if (e.path().extension() != ".png") continue;
      const fs::path other = dir_ / b / e.path().filename();
      const Image mine = read_png(e.path());
      EXPECT_GT(mine.width, 0) << e.path();
      EXPECT_EQ(mine.rgb, read_png(other).rgb) << e.path();
      ++n;
    }
    return n;
  }
  std::set<std::string> names_in(const fs::path& folder) const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / folder))
      names.insert(e.path().filename().string());
    return names;
  }
};

const std::string kSequence =
    "render --cpu --width 64 --height 48 --iters 300 --center -0.5,0 --span 3 "
    "--zoom-to -0.7435,0.1314,0.003 --frames 7 ";

TEST_F(RenderMpiTest, ThreeRanksRenderTheSequenceOfOneProcess) {
  const Result r = mpirun(3, kSequence + "--out ranks");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote 7 frames and frames.json to ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 MPI ranks"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "rank 0 alone says it: " << r.out;
  ASSERT_EQ(run(kSequence + "--out one").code, 0);
  EXPECT_EQ(expect_same_pngs("one", "ranks"), 7);
  const auto j = nlohmann::json::parse(slurp(dir_ / "ranks" / "frames.json"));
  ASSERT_EQ(j["frames"].size(), 7u);
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(j["frames"][k]["frame"], k);
    EXPECT_EQ(j["frames"][k]["rank"], k % 3) << "frame k is rank k % 3's";
  }
  ASSERT_EQ(j["run"]["ranks"].size(), 3u);
  for (int rank = 0; rank < 3; ++rank) EXPECT_EQ(j["run"]["ranks"][rank]["rank"], rank);
}

// Two ranks: mpirun binds each to one core (its default for two ranks or fewer), and each says so
// in one line with how to give it more; unbound, they say nothing of it.
TEST_F(RenderMpiTest, RanksBoundToOneCoreSaySoAndHowToGiveThemMore) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: no binding to tell of";
  const Result bound = mpirun(2, kSequence + "--out bound");
  ASSERT_EQ(bound.code, 0) << bound.err;
  for (const char* rank : {"rank 0 of 2", "rank 1 of 2"}) {
    const std::size_t at = bound.err.find(std::string("note: ") + rank);
    ASSERT_NE(at, std::string::npos) << bound.err;
    const std::string line = bound.err.substr(at, bound.err.find('\n', at) - at);
    EXPECT_NE(line.find("may run on 1 core of the host's"), std::string::npos) << line;
    EXPECT_NE(line.find("--bind-to none"), std::string::npos) << line;
    EXPECT_NE(line.find("--map-by slot:pe=N"), std::string::npos) << line;
  }
  const auto j = nlohmann::json::parse(slurp(dir_ / "bound" / "frames.json"));
  for (const auto& rank : j["run"]["ranks"]) EXPECT_EQ(rank["encoder_threads"], 1);
  const Result free = mpirun(2, kSequence + "--out free", "", "--bind-to none");
  ASSERT_EQ(free.code, 0) << free.err;
  EXPECT_EQ(free.err.find("may run on 1 core"), std::string::npos) << free.err;
  EXPECT_EQ(expect_same_pngs("bound", "free"), 7);
}

// 1000x9000 is three bands of 4194 rows (a band each), the EXR beside it: rank 0 writes both,
// the bands of ranks 1 and 2 sent to it.
TEST_F(RenderMpiTest, ThreeRanksRenderTheBandedStillOfOneProcess) {
  const std::string still =
      "render --cpu --width 1000 --height 9000 --center -0.745,0.113 --span 0.05 --iters 30 ";
  const Result r = mpirun(3, still + "--exr ranks.exr --out ranks.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("1000x9000 in 3 bands"), std::string::npos) << r.err;
  ASSERT_EQ(run(still + "--exr one.exr --out one.png").code, 0);
  const Image ranks = read_png(dir_ / "ranks.png");
  ASSERT_EQ(ranks.width, 1000);
  ASSERT_EQ(ranks.height, 9000);
  EXPECT_EQ(ranks.rgb, read_png(dir_ / "one.png").rgb);
  const ExrValues one = exr_values((dir_ / "one.exr").c_str());
  ASSERT_EQ(one.n.size(), 1000u * 9000);
  EXPECT_EQ(exr_values((dir_ / "ranks.exr").c_str()), one);  // values: ISA-L's bytes may differ
  const auto j = nlohmann::json::parse(slurp(dir_ / "ranks.json"));
  ASSERT_EQ(j["ranks"].size(), 3u);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(j["ranks"][rank]["rank"], rank);
    EXPECT_EQ(j["ranks"][rank]["workers"][0]["bands"], 1) << "rank " << rank;
  }
  EXPECT_EQ(names_in("."), (std::set<std::string>{"one.exr", "one.json", "one.png", "ranks.exr",
                                                  "ranks.json", "ranks.png"}));
}

// Rank 1 dies once it has written its first frame (frame 1; the test hook): mpirun ends the
// others, whose frames stay whole and listed. --resume, by three ranks again, renders only the
// frames missing, and the sequence is one process's.
TEST_F(RenderMpiTest, ResumeAfterAKilledRankRendersOnlyTheMissingFrames) {
  const std::string sequence =
      "render --cpu --width 64 --height 48 --iters 20000 --center -0.5,0 --span 3 "
      "--zoom-to -0.7435,0.1314,0.003 --frames 9 --out seq";
  const Result killed = mpirun(3, sequence, "MANDELPIPE_TEST_KILL_RANK=1:1");
  EXPECT_NE(killed.code, 0) << killed.err;
  const auto before = nlohmann::json::parse(slurp(dir_ / "seq" / "frames.json"));
  std::set<int> listed;
  std::map<int, Stamp> stamps;
  for (const auto& f : before["frames"]) {
    const int k = f["frame"].get<int>();
    listed.insert(k);
    stamps[k] = stamp(dir_ / "seq" / f["image"].get<std::string>());
  }
  EXPECT_TRUE(listed.count(1)) << "rank 1's frame, written before it died";
  EXPECT_FALSE(listed.count(4) || listed.count(7)) << "rank 1's later frames";
  const Result resumed = mpirun(3, sequence + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("--resume: " + std::to_string(listed.size()) + " of 9 frames"),
            std::string::npos)
      << resumed.err;
  for (const auto& [k, s] : stamps) {  // not written again
    const Stamp now = stamp(dir_ / "seq" / ("frame-0000" + std::to_string(k) + ".png"));
    EXPECT_EQ(now.inode, s.inode) << k;
    EXPECT_EQ(now.mtime.tv_nsec, s.mtime.tv_nsec) << k;
  }
  std::set<std::string> expected = {"frames.json"};
  for (int k = 0; k < 9; ++k) expected.insert("frame-0000" + std::to_string(k) + ".png");
  EXPECT_EQ(names_in("seq"), expected) << "the killed rank's unfinished frame is gone";
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "seq" / "frames.json"))["frames"].size(), 9u);
  ASSERT_EQ(run("render --cpu --width 64 --height 48 --iters 20000 --center -0.5,0 --span 3 "
                "--zoom-to -0.7435,0.1314,0.003 --frames 9 --out one")
                .code,
            0);
  EXPECT_EQ(expect_same_pngs("one", "seq"), 9);
}

}  // namespace
}  // namespace mp
