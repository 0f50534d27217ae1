// CUDA error handling: every runtime call is checked and failures throw with file:line.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mp {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* what, const char* file,
                                          int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                  cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace mp

#define CUDA_CHECK(call)                                                                  \
  do {                                                                                    \
    const cudaError_t mp_err_ = (call);                                                   \
    if (mp_err_ != cudaSuccess) mp::throw_cuda_error(mp_err_, #call, __FILE__, __LINE__); \
  } while (0)
