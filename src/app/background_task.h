// Work that would hold the window for seconds (an experiment measuring the GPU) run on a thread
// of its own: the frame loop asks once a frame whether it is done, and takes its result or its
// exception there, on the window's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <optional>
#include <utility>

namespace mp {

// `work` run by std::async from construction on; poll() is std::future::get without the wait:
// nothing while the work runs, then what it returned, or what it threw rethrown, once.
// Destroying the task while the work runs waits for the work to end (the future's destructor).
template <typename T>
class BackgroundTask {
 public:
  explicit BackgroundTask(std::function<T()> work)
      : future_(std::async(std::launch::async, [this, work = std::move(work)] {
          // Stamps the time taken however the work ends, before the future is ready.
          struct Stamp {
            BackgroundTask* task;
            ~Stamp() { task->took_s_.store(since(task->start_)); }
          } stamp{this};
          return work();
        })) {}

  bool done() const {  // a future whose result was taken is no longer valid
    return !future_.valid() ||
           future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  // Seconds since the start while the work runs, then what it took.
  double elapsed_s() const { return done() ? took_s_.load() : since(start_); }
  std::optional<T> poll() {
    if (taken_ || !done()) return std::nullopt;
    taken_ = true;
    return future_.get();
  }

 private:
  static double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::atomic<double> took_s_{0};
  bool taken_ = false;
  std::future<T> future_;  // last: it waits for the work before the members the work writes go
};

}  // namespace mp
