// The session's GPU renderer: made and owned here, and lent to one user at a time (the window's
// frames, or a job on a worker: compare, the sine sweep, an experiment, bench). While a job has
// it the window gets none (for_window() is null), and a change of its settings from the window's
// controls waits here, in order, and is made on the window's thread when the job gives it back,
// so that the worker never reads a setting the window is writing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mp {

template <class Renderer>
class RendererLease {
 public:
  using Change = std::function<void(Renderer&)>;

  RendererLease() = default;  // no renderer: the CPU path
  explicit RendererLease(std::unique_ptr<Renderer> renderer) : renderer_(std::move(renderer)) {}

  bool has_renderer() const { return renderer_ != nullptr; }
  // For reading on the window's thread whoever holds it (its device, its settings: a job only
  // reads them, and the window writes them through change()); null without one.
  const Renderer* peek() const { return renderer_.get(); }
  // The window's frames draw with it while no job has it: null while lent, or without one.
  Renderer* for_window() { return lent() ? nullptr : renderer_.get(); }
  // The job's, on its worker, between lend() and give_back() (which the window's thread calls
  // before the worker starts and after its result is handed over). Asked for at any other time
  // (or without one) it throws: the job fails rather than race the window.
  Renderer& for_job() {
    if (!lent() || !renderer_) throw std::logic_error("the GPU renderer is not lent to this job");
    return *renderer_;
  }

  bool lent() const { return !holder_.empty(); }
  // Who has it ("compare", "sine sweep", ...), empty while the window does.
  const std::string& holder() const { return holder_; }
  std::size_t waiting() const { return waiting_.size(); }
  // Counts what left the renderer's memory of the frame or its settings other than the window's
  // frames made them: a job given it back (it drew with the renderer), a change made. The window
  // renders again when it moves (frame_key.h).
  std::uint64_t generation() const { return generation_; }

  // To a job, which alone uses it until give_back(); null without one (the holder is noted all
  // the same, so that the window waits for the job either way).
  Renderer* lend(std::string holder) {
    holder_ = holder.empty() ? "a job" : std::move(holder);
    return renderer_.get();
  }
  // The job is done with it: the changes that waited are made now, oldest first.
  void give_back() {
    holder_.clear();
    ++generation_;
    std::vector<Change> changes = std::exchange(waiting_, {});
    if (renderer_)
      for (Change& c : changes) c(*renderer_);
  }
  // Made at once where the window holds the renderer, else when it comes back. Returns whether
  // it was made now.
  bool change(Change c) {
    if (!renderer_) return false;
    if (lent()) {
      waiting_.push_back(std::move(c));
      return false;
    }
    c(*renderer_);
    ++generation_;
    return true;
  }

 private:
  std::unique_ptr<Renderer> renderer_;
  std::string holder_;
  std::vector<Change> waiting_;
  std::uint64_t generation_ = 0;
};

}  // namespace mp
