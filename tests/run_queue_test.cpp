#include "app/run_queue.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace mp {
namespace {

TEST(RunQueue, RunsInOrderAndReportsFailuresToTheirJob) {
  RunQueue q;
  std::vector<std::string> log;
  q.push(
      "a", [&] { log.push_back("a"); }, [&](const std::string& w) { log.push_back("!" + w); });
  q.push(
      "b", [] { throw std::runtime_error("disk full"); },
      [&](const std::string& w) { log.push_back("b failed: " + w); });
  q.push(
      "c", [&] { log.push_back("c"); }, nullptr);
  EXPECT_TRUE(q.pending("b"));
  q.run();
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b failed: disk full", "c"}));
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.pending("b"));
}

TEST(RunQueue, AJobQueuedTwiceRunsOnceAndAJobsOwnJobWaits) {
  RunQueue q;
  int runs = 0, later = 0;
  q.push(
      "compare", [&] { ++runs; }, nullptr);
  q.push(
      "compare", [&] { ++runs; }, nullptr);
  q.push(
      "outer",
      [&] {
        q.push(
            "inner", [&] { ++later; }, nullptr);
      },
      nullptr);
  q.run();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(later, 0);
  EXPECT_TRUE(q.pending("inner"));
  q.run();
  EXPECT_EQ(later, 1);
}

}  // namespace
}  // namespace mp
