// MP_REQUIRE_GPU (required.h): on a machine meant to have a GPU, a GPU test that finds none must
// fail, not skip. Shown by running this binary's own GPU test again with the GPU hidden from it,
// so these checks need no GPU and hold on every machine.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "cuda_device_test.h"

namespace mp {
namespace {

// The GPU test the runs below hide the GPU from; where there is one, it checks what the fixture
// hands every GPU test.
using GpuPresentTest = CudaDeviceTest<>;

TEST_F(GpuPresentTest, TheProbeNamesTheDevice) {
  EXPECT_FALSE(device_.name.empty());
  EXPECT_GT(device_.sm_count, 0);
}

struct ChildRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// GpuPresentTest again, in this binary run anew with CUDA_VISIBLE_DEVICES empty (no device) and
// MP_REQUIRE_GPU as `require` says: unset where it is empty.
ChildRun run_hidden_from_the_gpu(const std::string& require) {
  std::array<char, 4096> self{};
  const ssize_t n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) {
    ADD_FAILURE() << "cannot find this test binary through /proc/self/exe";
    return {};
  }
  const std::string env = require.empty() ? "env -u MP_REQUIRE_GPU CUDA_VISIBLE_DEVICES="
                                          : "env CUDA_VISIBLE_DEVICES= MP_REQUIRE_GPU=" + require;
  const std::string cmd =
      env + " '" + std::string(self.data(), n) + "' --gtest_filter='GpuPresentTest.*' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << cmd;
    return {};
  }
  ChildRun r;
  std::array<char, 4096> buf{};
  for (std::size_t got; (got = fread(buf.data(), 1, buf.size(), pipe)) > 0;)
    r.out.append(buf.data(), got);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(RequireGpu, WithoutItAMissingGpuIsASkip) {
  for (const char* require : {"", "0"}) {
    const ChildRun r = run_hidden_from_the_gpu(require);
    EXPECT_EQ(r.code, 0) << "MP_REQUIRE_GPU='" << require << "'\n" << r.out;
    EXPECT_NE(r.out.find("[  SKIPPED ] GpuPresentTest.TheProbeNamesTheDevice"), std::string::npos)
        << r.out;
  }
}

TEST(RequireGpu, WithItAMissingGpuIsAFailure) {
  const ChildRun r = run_hidden_from_the_gpu("1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("[  FAILED  ] GpuPresentTest.TheProbeNamesTheDevice"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("MP_REQUIRE_GPU is set, but there is no GPU"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mp
