// GPU time of a stretch of GL commands, by timer queries read a few frames later so that
// reading them never waits for the GPU.
#pragma once

#include <array>
#include <optional>

#include "gl/gl_objects.h"

namespace mp::gl {

class GpuTimer {
 public:
  void begin();
  void end();
  // The oldest finished measurement not yet taken, in ms; nullopt while none is ready.
  std::optional<double> take();

 private:
  static constexpr int kDepth = 4;  // frames a result may lag behind
  std::array<Query, kDepth> queries_;
  int next_ = 0;     // the query begin() uses
  int pending_ = 0;  // ended queries not yet taken, the oldest at next_ - pending_
};

}  // namespace mp::gl
