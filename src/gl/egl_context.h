// An off-screen OpenGL 4.5 core context through EGL, for rendering without a display.
#pragma once

#include <string>

namespace mp::gl {

class EglContext {
 public:
  // Prefers the EGL device that drives a CUDA GPU (device platform), then any EGL device, then
  // Mesa's surfaceless platform, then the default display. The context is current on return.
  // Throws std::runtime_error saying what is missing when none gives a GL 4.5 core context.
  EglContext();
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  const std::string& description() const { return description_; }

 private:
  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
  std::string description_;
};

}  // namespace mp::gl
