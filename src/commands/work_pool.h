// A fixed set of threads taking tasks from one queue, first in first out: render's colouring and
// encoding on every core the process may run on.
#pragma once

#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mp {

// The cores this process may run on: its affinity (what mpirun, Slurm or taskset gave it), else
// the hardware's threads.
inline int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

class WorkPool {
 public:
  // A task is given the index of the thread running it (0..threads-1), for state of its own.
  using Task = std::function<void(int thread)>;

  explicit WorkPool(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { work(i); });
  }
  // Runs every task queued, then ends the threads.
  ~WorkPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  int threads() const { return static_cast<int>(threads_.size()); }
  // Tasks must not throw: each catches what it raises and hands it to whoever waits for it.
  void submit(Task task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void work(int index) {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return closing_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task(index);
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> tasks_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mp
