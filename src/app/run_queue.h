// Work a window asks for during a frame (compare, an experiment, the sine sweep, a capture, a
// save): queued, then run a step at a time at one point of the frame, with failures reported in
// one place. A long job is a number of steps, so that the window draws and answers between them.
#pragma once

#include <deque>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace mp {

class RunQueue {
 public:
  using Job = std::function<void()>;
  using Step = std::function<void(int step)>;  // 0, 1, ... steps - 1, in order
  using Failed = std::function<void(const std::string& why)>;

  struct Progress {
    int done = 0, total = 0;
    float fraction() const { return total > 0 ? static_cast<float>(done) / total : 0.0f; }
  };

  // `name` lets a window show the job as pending; `failed` gets the message of whatever the
  // job throws. A job already queued under the same name is not queued twice.
  void push(std::string name, Job job, Failed failed) {
    push_steps(
        std::move(name), 1, [job = std::move(job)](int) { job(); }, std::move(failed));
  }
  // A job of `steps` steps: one runs per call of run(). A step that throws ends the job there,
  // reported once to `failed`; the steps before it keep what they did.
  void push_steps(std::string name, int steps, Step step, Failed failed) {
    if (steps <= 0 || pending(name)) return;
    jobs_.push_back({std::move(name), steps, 0, std::move(step), std::move(failed)});
  }
  bool pending(const std::string& name) const {
    return (running_ && *running_ == name) || find(name) != nullptr;
  }
  bool empty() const { return jobs_.empty(); }
  // Steps done and in all of the job of that name, while it is queued.
  std::optional<Progress> progress(const std::string& name) const {
    const Entry* e = find(name);
    if (!e) return std::nullopt;
    return Progress{e->done, e->steps};
  }
  // Drops the job's steps not yet run (from inside one of its steps too); false when there was
  // no such job.
  bool cancel(const std::string& name) {
    if (running_ && *running_ == name) return cancel_running_ = true;
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
      if (it->name == name) {
        jobs_.erase(it);
        return true;
      }
    return false;
  }

  // Runs the next step of each job queued before the call, oldest first; one queued by a job
  // waits for the next call, so that a frame's work stays bounded.
  void run() {
    for (std::size_t n = jobs_.size(); n > 0; --n) {
      Entry e = std::move(jobs_.front());
      jobs_.pop_front();
      running_ = e.name;
      cancel_running_ = false;
      bool ok = true;
      try {
        e.step(e.done);
      } catch (const std::exception& ex) {
        ok = false;
        if (e.failed) e.failed(ex.what());
      }
      running_.reset();
      if (ok && !cancel_running_ && ++e.done < e.steps) jobs_.push_back(std::move(e));
    }
  }

 private:
  struct Entry {
    std::string name;
    int steps = 1, done = 0;
    Step step;
    Failed failed;
  };
  const Entry* find(const std::string& name) const {
    for (const Entry& e : jobs_)
      if (e.name == name) return &e;
    return nullptr;
  }
  std::deque<Entry> jobs_;
  std::optional<std::string> running_;  // the job whose step runs now, out of jobs_
  bool cancel_running_ = false;
};

}  // namespace mp
