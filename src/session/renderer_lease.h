// The window's GPU renderer is lent to one job at a time (compare, the sine sweep, experiments
// on a worker thread). While it is lent the window does not touch it: a change of its settings
// from the window's controls waits here, in order, and is made on the window's thread when the
// job gives it back, so that the worker never reads a setting the window is writing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mp {

template <class Renderer>
class RendererLease {
 public:
  using Change = std::function<void(Renderer&)>;

  bool lent() const { return !holder_.empty(); }
  // Who has it ("compare", "sine sweep", ...), empty while the window does.
  const std::string& holder() const { return holder_; }
  std::size_t waiting() const { return waiting_.size(); }
  // Counts what left the renderer's memory of the frame or its settings other than the window's
  // frames made them: a job given it back (it drew with the renderer), a change made. The window
  // renders again when it moves (frame_key.h).
  std::uint64_t generation() const { return generation_; }

  void lend(std::string holder) { holder_ = holder.empty() ? "a job" : std::move(holder); }
  // The job is done with it: the changes that waited are made now, oldest first.
  void give_back(Renderer* renderer) {
    holder_.clear();
    ++generation_;
    std::vector<Change> changes = std::exchange(waiting_, {});
    if (renderer)
      for (Change& c : changes) c(*renderer);
  }
  // Made at once where the window holds the renderer, else when it comes back. Returns whether
  // it was made now.
  bool change(Renderer* renderer, Change c) {
    if (!renderer) return false;
    if (lent()) {
      waiting_.push_back(std::move(c));
      return false;
    }
    c(*renderer);
    ++generation_;
    return true;
  }

 private:
  std::string holder_;
  std::vector<Change> waiting_;
  std::uint64_t generation_ = 0;
};

}  // namespace mp
