// Work a window asks for during a frame (compare, an experiment, the sine sweep, a capture, a
// save): queued, then run a step at a time at one point of the frame, with failures reported in
// one place. A long job is a number of steps, so that the window draws and answers between them;
// a step too long for a frame (an experiment) runs on a worker thread while the window goes on.
#pragma once

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "app/background_task.h"

namespace mp {

class RunQueue {
 public:
  using Job = std::function<void()>;
  using Step = std::function<void(int step)>;  // 0, 1, ... steps - 1, in order
  using Failed = std::function<void(const std::string& why)>;
  // A step run off the window's thread returns what to do with its result on that thread (store
  // it where a window reads it): run() runs it once it finds the step done.
  using Then = std::function<void()>;
  using OffThreadStep = std::function<Then(int step)>;

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
    jobs_.push_back(
        {std::move(name), steps, 0, std::move(step), nullptr, std::move(failed), nullptr});
  }
  // A job of `steps` steps each run on a worker thread, one after another: a run() starts a
  // step, later ones look whether it is done and hand its result over, so that the window draws
  // and takes input at its full rate while a step takes seconds. A step that throws ends the
  // job, reported to `failed` on the window's thread.
  void push_steps_off_thread(std::string name, int steps, OffThreadStep step, Failed failed) {
    if (steps <= 0 || pending(name)) return;
    jobs_.push_back(
        {std::move(name), steps, 0, nullptr, std::move(step), std::move(failed), nullptr});
  }
  bool pending(const std::string& name) const {
    return (running_ && *running_ == name) || find(name) != nullptr;
  }
  bool empty() const { return jobs_.empty(); }
  // Drops every job, waiting for a step on a worker to end: before what the steps use goes.
  void drain() { jobs_.clear(); }
  // Steps done and in all of the job of that name, while it is queued.
  std::optional<Progress> progress(const std::string& name) const {
    const Entry* e = find(name);
    if (!e) return std::nullopt;
    return Progress{e->done, e->steps};
  }
  // Drops the job's steps not yet run (from inside one of its steps too); false when there was
  // no such job. A step on its worker cannot be cut: it finishes and its result still comes.
  bool cancel(const std::string& name) {
    if (running_ && *running_ == name) return cancel_running_ = true;
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
      if (it->name == name) {
        if (it->task)
          it->steps = it->done + 1;  // erasing would wait here for the step to end
        else
          jobs_.erase(it);
        return true;
      }
    return false;
  }

  struct OffThread {
    std::string job;
    int step = 0;
    double elapsed_s = 0;
  };
  // The step on a worker now, until its result is handed over.
  std::optional<OffThread> off_thread() const {
    for (const Entry& e : jobs_)
      if (e.task) return OffThread{e.name, e.done, e.task->elapsed_s()};
    return std::nullopt;
  }
  // The job whose step the next run() starts on a worker, if any: what the step shares (the GPU
  // renderer) must be let go of first. One step is on a worker at a time, of whichever job: the
  // others wait their turn, so that two jobs never share the renderer.
  std::optional<std::string> off_thread_starting() const {
    if (off_thread()) return std::nullopt;
    for (const Entry& e : jobs_)
      if (e.off_thread_step && !e.task) return e.name;
    return std::nullopt;
  }

  // Runs the next step of each job queued before the call, oldest first; one queued by a job
  // waits for the next call, so that a frame's work stays bounded.
  void run() {
    bool worker_free = !off_thread();
    for (std::size_t n = jobs_.size(); n > 0; --n) {
      Entry e = std::move(jobs_.front());
      jobs_.pop_front();
      running_ = e.name;
      cancel_running_ = false;
      bool again = true;  // the job stays queued
      try {
        if (e.step) {
          e.step(e.done);
          again = ++e.done < e.steps;
        } else if (!e.task) {
          // Else its turn comes in a later run(), named by off_thread_starting() before it.
          if (std::exchange(worker_free, false))
            e.task = std::make_unique<BackgroundTask<Then>>(
                [step = e.off_thread_step, i = e.done] { return step(i); });
        } else if (std::optional<Then> then = e.task->poll()) {
          e.task.reset();
          if (*then) (*then)();
          again = ++e.done < e.steps;
        }
      } catch (const std::exception& ex) {
        again = false;
        e.task.reset();  // done: it threw
        if (e.failed) e.failed(ex.what());
      }
      running_.reset();
      if (again && !cancel_running_) jobs_.push_back(std::move(e));
    }
  }

 private:
  struct Entry {
    std::string name;
    int steps = 1, done = 0;
    Step step;                      // on the window's thread; or
    OffThreadStep off_thread_step;  // on a worker
    Failed failed;
    std::unique_ptr<BackgroundTask<Then>> task;  // the step on its worker
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
