// The SASS of the kernels this process runs, for the window's overlay, SASS view and frame
// reports: read once on a worker at start, since cuobjdump takes a moment, and cancelled (its
// cuobjdump stopped rather than waited for) when the window closes first.
#pragma once

#include <atomic>
#include <future>
#include <optional>
#include <string>

#include "io/sass_loader.h"

namespace mp {

class SassListings {
 public:
  // Starts reading the SASS of `arch` (10 x compute capability) from this executable.
  explicit SassListings(int arch);
  ~SassListings();
  SassListings(const SassListings&) = delete;
  SassListings& operator=(const SassListings&) = delete;

  // A read under way stops (its cuobjdump ended) instead of being waited for.
  void cancel() { cancel_ = true; }
  // Takes the listings once the read is done (a frame's poll: it never waits).
  void poll();
  // The read is still under way.
  bool reading() const { return loading_.valid(); }
  // The listings, once read and usable; null before or where none could be read.
  const LoadedSass* get() const { return loaded_ && loaded_->ok() ? &*loaded_ : nullptr; }
  // What was read, usable or not (its `source` says which and why), none while reading.
  const std::optional<LoadedSass>& loaded() const { return loaded_; }

 private:
  std::atomic<bool> cancel_{false};
  std::future<LoadedSass> loading_;
  std::optional<LoadedSass> loaded_;
};

}  // namespace mp
