// The instruction mix declared beside each variant (cuda/host_device/variants.h) against the SASS
// of the built kernels, read with cuobjdump the way the app reads it at run time. Skips where
// cuobjdump is missing (CI has none).
#include <gtest/gtest.h>

#include <cstdio>

#include "io/sass_loader.h"
#include "model/variant_table.h"

namespace mp {
namespace {

TEST(SassMix, DeclaredMixMatchesTheBuiltKernelOnEveryShippedArchitecture) {
  if (find_cuobjdump().empty())
    GTEST_SKIP() << "cuobjdump not found (CUDA_PATH, PATH, /usr/local/cuda/bin)";
  // The test binary links the same kernels as mandelpipe.
  const std::string self = self_executable();
  // A build for the GPU at hand (CMake's native, as scripts/setup.sh makes on a GPU machine)
  // holds that one architecture: the others are checked where they are built (CI's full list).
  int checked = 0;
  for (int arch : {75, 80, 86, 89, 90}) {
    const LoadedSass s = load_kernel_sass(self, arch);
    if (!s.ok()) {
      std::printf("  sm_%d: not in this build (%s)\n", arch, s.source.c_str());
      continue;
    }
    ++checked;
    for (const VariantInfo& v : all_variants()) {
      ASSERT_EQ(s.loops.count(v.id), 1u) << v.name << " in " << s.arch;
      const LoopListing& l = s.loops.at(v.id);
      std::printf(
          "  %s %-9s loop of %zu: FMA %g (heavy-only %g) ALU %g XU %g FP64 %g LSU %g other %g\n",
          s.arch.c_str(), v.name.data(), l.code.size(), l.mix.fma, l.heavy_only, l.mix.alu,
          l.mix.xu, l.mix.fp64, l.mix.lsu, l.mix.other);
      EXPECT_EQ(l.mix, v.loop.at(arch)) << v.name << " on " << s.arch;
      if (v.perturbation) continue;  // one build: perturb_kernel<V, false>
      // The recording kernel has a loop of its own, read the same way.
      EXPECT_EQ(s.loops_recording.count(v.id), 1u) << v.name << " in " << s.arch;
      // So has the resumable one (frames whose orbits are cut), which the model takes for them.
      ASSERT_EQ(s.loops_resumable.count(v.id), 1u) << v.name << " in " << s.arch;
      const LoopListing& r = s.loops_resumable.at(v.id);
      std::printf("  %s %-9s resumable loop of %zu: FMA %g ALU %g XU %g FP64 %g other %g\n",
                  s.arch.c_str(), v.name.data(), r.code.size(), r.mix.fma, r.mix.alu, r.mix.xu,
                  r.mix.fp64, r.mix.other);
    }
  }
  EXPECT_GT(checked, 0) << "no architecture's render kernels found in " << self;
}

}  // namespace
}  // namespace mp
