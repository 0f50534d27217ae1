#include "app/run_queue.h"

#include "session/renderer_lease.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
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

// run() once a frame until the job is gone (or a few seconds pass), as the window's loop does.
void run_until_done(RunQueue& q, const std::string& job) {
  for (int i = 0; i < 5000 && q.pending(job); ++i) {
    q.run();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_FALSE(q.pending(job));
}

TEST(RunQueue, AnOffThreadStepRunsOnAWorkerAndItsResultComesBackOnTheCallersThread) {
  RunQueue q;
  std::atomic<bool> open{false};
  std::vector<int> results;
  std::vector<std::thread::id> worker_threads, result_threads;
  std::atomic<int> running{0}, most_at_once{0};
  q.push_steps_off_thread(
      "experiment", 3,
      [&](int step) -> RunQueue::Then {
        most_at_once = std::max(most_at_once.load(), ++running);
        while (step == 0 && !open) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const std::thread::id id = std::this_thread::get_id();
        --running;
        return [&, step, id] {
          results.push_back(10 * step);
          worker_threads.push_back(id);
          result_threads.push_back(std::this_thread::get_id());
        };
      },
      nullptr);
  EXPECT_EQ(q.off_thread_starting(), "experiment");
  EXPECT_FALSE(q.off_thread());
  q.run();  // starts step 0, does not wait for it
  EXPECT_FALSE(q.off_thread_starting());
  ASSERT_TRUE(q.off_thread());
  EXPECT_EQ(q.off_thread()->job, "experiment");
  EXPECT_EQ(q.off_thread()->step, 0);
  for (int i = 0; i < 5; ++i) q.run();  // the frames go on while it runs
  EXPECT_TRUE(results.empty());
  EXPECT_EQ(q.progress("experiment")->done, 0);
  EXPECT_TRUE(q.pending("experiment"));
  open = true;
  run_until_done(q, "experiment");
  EXPECT_EQ(results, (std::vector<int>{0, 10, 20}));
  EXPECT_EQ(most_at_once, 1) << "one step at a time";
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_NE(worker_threads[i], std::this_thread::get_id());
    EXPECT_EQ(result_threads[i], std::this_thread::get_id());
  }
  EXPECT_FALSE(q.off_thread());
}

TEST(RunQueue, CancelLetsTheOffThreadStepUnderWayFinishAndDropsTheRest) {
  RunQueue q;
  std::atomic<bool> open{false};
  std::vector<int> results;
  int saves = 0;
  q.push_steps_off_thread(
      "experiment", 4,
      [&](int step) -> RunQueue::Then {
        while (!open) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return [&, step] { results.push_back(step); };
      },
      nullptr);
  q.run();
  ASSERT_TRUE(q.off_thread());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(q.cancel("experiment"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500))
      << "cancel waited for the step";
  EXPECT_TRUE(q.pending("experiment")) << "the step under way still counts as running";
  q.push(
      "save", [&] { ++saves; }, nullptr);
  q.run();  // other jobs go on meanwhile
  EXPECT_EQ(saves, 1);
  open = true;
  run_until_done(q, "experiment");
  EXPECT_EQ(results, (std::vector<int>{0})) << "its result kept, no later step run";
}

TEST(RunQueue, AnOffThreadStepThatThrowsIsReportedOnceOnTheCallersThread) {
  RunQueue q;
  std::vector<std::string> failures;
  std::thread::id failed_on;
  int results = 0;
  q.push_steps_off_thread(
      "experiment", 3,
      [&](int step) -> RunQueue::Then {
        if (step == 1) throw std::runtime_error("CUDA error: out of memory");
        return [&] { ++results; };
      },
      [&](const std::string& why) {
        failures.push_back(why);
        failed_on = std::this_thread::get_id();
      });
  run_until_done(q, "experiment");
  EXPECT_EQ(results, 1);
  EXPECT_EQ(failures, (std::vector<std::string>{"CUDA error: out of memory"}));
  EXPECT_EQ(failed_on, std::this_thread::get_id());
}

// The window's loop over two jobs that measure with the GPU renderer (compare and the sine sweep
// queued together): one step is on a worker at a time, the job it belongs to named before it
// starts, so that the window lends the renderer to that job alone and has it back in between.
TEST(RunQueue, TwoJobsOnTheWorkerTakeTurnsWithTheLentRenderer) {
  struct Renderer {
    std::atomic<int> users{0}, most{0};
  };
  RendererLease<Renderer> lease(std::make_unique<Renderer>());
  RunQueue q;
  std::vector<std::string> lent_to, window_frames;
  const auto job = [&](const std::string& name) {
    q.push_steps_off_thread(
        name, 3,
        [&lease](int) -> RunQueue::Then {
          Renderer& r = lease.for_job();  // throws outside the job's lease: the job would fail
          r.most = std::max(r.most.load(), ++r.users);
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          --r.users;
          return nullptr;
        },
        [](const std::string& why) { ADD_FAILURE() << why; });
  };
  job("compare");
  job("sine sweep");
  for (int i = 0; i < 5000 && !q.empty(); ++i) {
    if (lease.for_window()) window_frames.push_back("frame");
    if (const auto name = q.off_thread_starting()) {
      ASSERT_FALSE(lease.lent());
      lease.lend(*name);
      lent_to.push_back(*name);
    }
    q.run();
    if (lease.lent() && q.off_thread())
      EXPECT_EQ(q.off_thread()->job, lease.holder()) << "the step on the worker is the holder's";
    if (lease.lent() && !q.off_thread()) lease.give_back();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(q.empty());
  EXPECT_EQ(lease.peek()->most.load(), 1) << "never two jobs on the renderer at once";
  EXPECT_EQ(lent_to.size(), 6u) << "lent once per step";
  EXPECT_FALSE(window_frames.empty()) << "the window has it back between steps";
}

}  // namespace
}  // namespace mp
