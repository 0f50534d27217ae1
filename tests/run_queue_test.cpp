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

TEST(RunQueue, AJobOfStepsRunsOneStepPerCallAndSaysHowFarItIs) {
  RunQueue q;
  std::vector<int> steps;
  int saves = 0;
  q.push_steps(
      "compare", 3, [&](int i) { steps.push_back(i); }, nullptr);
  q.push(
      "save", [&] { ++saves; }, nullptr);
  ASSERT_TRUE(q.progress("compare"));
  EXPECT_EQ(q.progress("compare")->done, 0);
  EXPECT_EQ(q.progress("compare")->total, 3);
  EXPECT_FALSE(q.progress("sweep"));
  q.run();
  EXPECT_EQ(steps, (std::vector<int>{0}));
  EXPECT_EQ(saves, 1);  // a one-step job behind it is not held up
  EXPECT_EQ(q.progress("compare")->done, 1);
  EXPECT_FLOAT_EQ(q.progress("compare")->fraction(), 1.0f / 3);
  q.run();
  EXPECT_EQ(steps, (std::vector<int>{0, 1}));
  EXPECT_TRUE(q.pending("compare"));
  q.run();
  EXPECT_EQ(steps, (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(q.pending("compare"));
  EXPECT_TRUE(q.empty());
  q.run();
  EXPECT_EQ(steps.size(), 3u);
}

TEST(RunQueue, CancelDropsTheStepsLeftAndKeepsWhatTheEarlierOnesDid) {
  RunQueue q;
  std::vector<int> done;
  q.push_steps(
      "sweep", 5, [&](int i) { done.push_back(i); }, nullptr);
  q.run();
  q.run();
  EXPECT_TRUE(q.cancel("sweep"));
  EXPECT_FALSE(q.pending("sweep"));
  EXPECT_FALSE(q.cancel("sweep"));
  q.run();
  EXPECT_EQ(done, (std::vector<int>{0, 1}));
  // Queued again after a cancel, it starts from its first step.
  q.push_steps(
      "sweep", 2, [&](int i) { done.push_back(10 + i); }, nullptr);
  q.run();
  EXPECT_EQ(done.back(), 10);
}

TEST(RunQueue, AStepMayCancelItsOwnJob) {
  RunQueue q;
  int runs = 0;
  q.push_steps(
      "experiments", 4,
      [&](int i) {
        ++runs;
        EXPECT_TRUE(q.pending("experiments"));
        if (i == 1) EXPECT_TRUE(q.cancel("experiments"));
      },
      nullptr);
  for (int i = 0; i < 4; ++i) q.run();
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(q.empty());
}

TEST(RunQueue, AFailingStepIsReportedOnceAndItsJobDropped) {
  RunQueue q;
  std::vector<int> done;
  std::vector<std::string> failures;
  q.push_steps(
      "compare", 4,
      [&](int i) {
        if (i == 1) throw std::runtime_error("out of memory");
        done.push_back(i);
      },
      [&](const std::string& w) { failures.push_back(w); });
  for (int i = 0; i < 4; ++i) q.run();
  EXPECT_EQ(done, (std::vector<int>{0}));
  EXPECT_EQ(failures, (std::vector<std::string>{"out of memory"}));
  EXPECT_FALSE(q.pending("compare"));
  // A job of no steps is nothing to run.
  q.push_steps(
      "empty", 0, [&](int) { done.push_back(-1); }, nullptr);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace mp
