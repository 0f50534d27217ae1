// Work a window asks for during a frame (compare, an experiment, the sine sweep, a capture, a
// save): queued, then run in order at one point of the frame, with failures reported in one place.
#pragma once

#include <deque>
#include <exception>
#include <functional>
#include <string>
#include <utility>

namespace mp {

class RunQueue {
 public:
  using Job = std::function<void()>;
  using Failed = std::function<void(const std::string& why)>;

  // `name` lets a window show the job as pending; `failed` gets the message of whatever the
  // job throws. A job already queued under the same name is not queued twice.
  void push(std::string name, Job job, Failed failed) {
    if (pending(name)) return;
    jobs_.push_back({std::move(name), std::move(job), std::move(failed)});
  }
  bool pending(const std::string& name) const {
    for (const Entry& e : jobs_)
      if (e.name == name) return true;
    return false;
  }
  bool empty() const { return jobs_.empty(); }

  // Runs the jobs queued before the call, oldest first; one queued by a job waits for the next
  // call, so that a frame's work stays bounded.
  void run() {
    for (std::size_t n = jobs_.size(); n > 0; --n) {
      Entry e = std::move(jobs_.front());
      jobs_.pop_front();
      try {
        e.job();
      } catch (const std::exception& ex) {
        if (e.failed) e.failed(ex.what());
      }
    }
  }

 private:
  struct Entry {
    std::string name;
    Job job;
    Failed failed;
  };
  std::deque<Entry> jobs_;
};

}  // namespace mp
