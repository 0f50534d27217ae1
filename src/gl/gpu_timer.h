// GPU time of a stretch of GL commands, by timer queries read a few frames later so that
// reading them never waits for the GPU.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "gl/gl_objects.h"

namespace mp::gl {

// A renderer that draws on the CPU (Mesa's llvmpipe, softpipe, swrast), by its GL_RENDERER.
bool is_software_renderer(std::string_view renderer);
// What a timer query times with the current context: "GPU", or where a software renderer draws,
// "CPU (llvmpipe draws in software)": the same figure, said of what it is.
std::string timer_queries_time();

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
