#include "app/background_task.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace mp {
namespace {

using namespace std::chrono_literals;

// A fake task held at a gate until the test opens it, so that "still running" is certain.
struct Gate {
  std::atomic<bool> open{false};
  void wait() const {
    while (!open.load()) std::this_thread::sleep_for(1ms);
  }
};

template <typename T>
void wait_done(const BackgroundTask<T>& task) {
  for (int i = 0; i < 5000 && !task.done(); ++i) std::this_thread::sleep_for(1ms);
  ASSERT_TRUE(task.done());
}

TEST(BackgroundTask, PollGivesNothingWhileItRunsThenTheResultOnce) {
  Gate gate;
  BackgroundTask<int> task([&] {
    gate.wait();
    return 42;
  });
  EXPECT_FALSE(task.done());
  EXPECT_FALSE(task.poll());
  std::this_thread::sleep_for(20ms);
  EXPECT_GE(task.elapsed_s(), 0.015) << "the elapsed time runs while the work does";
  gate.open = true;
  wait_done(task);
  const double took = task.elapsed_s();
  EXPECT_EQ(task.poll(), 42);
  EXPECT_FALSE(task.poll()) << "taken once";
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(task.elapsed_s(), took) << "once done, what it took";
}

TEST(BackgroundTask, AnExceptionComesBackWithItsMessage) {
  BackgroundTask<std::string> task([]() -> std::string {
    throw std::runtime_error("CUDA error: an illegal memory access was encountered");
  });
  wait_done(task);
  try {
    task.poll();
    FAIL() << "poll() should rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "CUDA error: an illegal memory access was encountered");
  }
  EXPECT_FALSE(task.poll());
}

TEST(BackgroundTask, DestroyedWhileRunningItWaitsForTheWork) {
  std::atomic<bool> finished{false};
  auto task = std::make_unique<BackgroundTask<int>>([&] {
    std::this_thread::sleep_for(50ms);
    finished = true;
    return 1;
  });
  EXPECT_FALSE(task->done());
  const auto t0 = std::chrono::steady_clock::now();
  task.reset();
  EXPECT_TRUE(finished) << "the destructor returned before the work ended";
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
}

TEST(BackgroundTask, TheWorkRunsOnAnotherThread) {
  const std::thread::id here = std::this_thread::get_id();
  BackgroundTask<std::thread::id> task([] { return std::this_thread::get_id(); });
  wait_done(task);
  EXPECT_NE(task.poll(), here);
}

}  // namespace
}  // namespace mp
