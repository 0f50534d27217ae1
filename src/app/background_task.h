// Work that would hold the window for seconds (an experiment measuring the GPU) run on a thread
// of its own: the frame loop asks once a frame whether it is done, and takes its result or its
// exception there, on the window's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <utility>

namespace mp {

// The thread under a BackgroundTask: runs `work` from construction on; the destructor waits for
// it, so that work never outlives what it uses. `work` must not throw.
class TaskThread {
 public:
  explicit TaskThread(std::function<void()> work);
  ~TaskThread();
  TaskThread(const TaskThread&) = delete;
  TaskThread& operator=(const TaskThread&) = delete;

  bool done() const { return done_.load(std::memory_order_acquire); }
  // Seconds since the start while the work runs, then what it took.
  double elapsed_s() const;

 private:
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<double> took_s_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;  // last: it starts once the members it writes exist
};

// `work` run on its own thread from construction on; poll() hands back what it returned, or
// rethrows what it threw, like std::future::get but without waiting. Destroying the task while
// the work runs waits for the work to end.
template <typename T>
class BackgroundTask {
 public:
  explicit BackgroundTask(std::function<T()> work)
      : thread_([this, work = std::move(work)] {
          try {
            result_.emplace(work());
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}

  bool done() const { return thread_.done(); }
  double elapsed_s() const { return thread_.elapsed_s(); }
  // Nothing while the work runs, and after the result was taken; once done, the result (or the
  // work's exception, rethrown), once.
  std::optional<T> poll() {
    if (!thread_.done() || taken_) return std::nullopt;
    taken_ = true;
    if (error_) std::rethrow_exception(error_);
    return std::move(result_);
  }

 private:
  std::optional<T> result_;
  std::exception_ptr error_;
  bool taken_ = false;
  TaskThread thread_;  // last: destroyed first, so the work ends before what it writes goes
};

}  // namespace mp
