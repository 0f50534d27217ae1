#include "app/background_task.h"

namespace mp {

TaskThread::TaskThread(std::function<void()> work)
    : thread_([this, work = std::move(work)] {
        work();
        took_s_.store(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
        done_.store(true, std::memory_order_release);
      }) {}

TaskThread::~TaskThread() {
  thread_.join();
}

double TaskThread::elapsed_s() const {
  if (done()) return took_s_.load();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace mp
