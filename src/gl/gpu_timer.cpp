#include "gl/gpu_timer.h"

namespace mp::gl {

bool is_software_renderer(std::string_view renderer) {
  for (const char* name : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer"})
    if (renderer.find(name) != std::string_view::npos) return true;
  return false;
}

std::string timer_queries_time() {
  const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const std::string renderer = name ? name : "";
  if (!is_software_renderer(renderer)) return "GPU";
  return "CPU (" + renderer.substr(0, renderer.find(' ')) + " draws in software)";
}

void GpuTimer::begin() {
  if (pending_ == kDepth) {  // the GPU is kDepth frames behind: drop the oldest unread result
    --pending_;
  }
  glBeginQuery(GL_TIME_ELAPSED, queries_[next_].id());
}

void GpuTimer::end() {
  glEndQuery(GL_TIME_ELAPSED);
  next_ = (next_ + 1) % kDepth;
  ++pending_;
}

std::optional<double> GpuTimer::take() {
  if (pending_ == 0) return std::nullopt;
  const GLuint q = queries_[(next_ - pending_ + kDepth) % kDepth].id();
  GLint ready = 0;
  glGetQueryObjectiv(q, GL_QUERY_RESULT_AVAILABLE, &ready);
  if (!ready) return std::nullopt;
  GLuint64 ns = 0;
  glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
  --pending_;
  return static_cast<double>(ns) * 1e-6;
}

}  // namespace mp::gl
