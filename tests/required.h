// What a test needs from the machine, and what its absence means. A test whose GPU, EGL or
// display is missing skips with the reason, so that the suite runs anywhere; where the machine is
// meant to have it, MP_REQUIRE_GPU, MP_REQUIRE_EGL or MP_REQUIRE_DISPLAY turns that skip into a
// failure, so that a broken driver or kit cannot pass as a machine without one. scripts/test.sh
// requires EGL and a display; the GPU machine's scripts (scripts/device/) require the GPU.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace mp {

// Whether the environment variable `name` says this machine must have what it names: set to
// anything but "" or "0".
inline bool required(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string_view(v) != "0";
}

// The one way a test reacts to finding no CUDA GPU (`reason` says why there is none): a skip, or
// a failure under MP_REQUIRE_GPU. Both end only this function, so call it as
// `return skip_without_gpu(reason);`.
inline void skip_without_gpu(const std::string& reason) {
  if (required("MP_REQUIRE_GPU"))
    FAIL() << "MP_REQUIRE_GPU is set, but there is no GPU: " << reason;
  GTEST_SKIP() << reason;
}

}  // namespace mp
