// The instruction mix declared beside each variant (cuda/variants.h) against the SASS of the
// built kernel, read with cuobjdump. Skips where cuobjdump is missing (CI has none).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "model/sass.h"
#include "model/variant_table.h"

namespace mp {
namespace {

std::string find_cuobjdump() {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const char* c = std::getenv("CUDA_PATH")) dirs.push_back(fs::path(c) / "bin");
  if (const char* p = std::getenv("PATH")) {
    std::string s = p;
    for (std::size_t a = 0, b; a <= s.size(); a = b + 1) {
      b = s.find(':', a);
      if (b == std::string::npos) b = s.size();
      dirs.push_back(s.substr(a, b - a));
    }
  }
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (fs::exists(d / "cuobjdump")) return (d / "cuobjdump").string();
  return "";
}

std::string run(const std::string& cmd) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) return out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p.get())) > 0;) out.append(buf, n);
  return out;
}

TEST(SassMix, DeclaredMixMatchesTheBuiltKernel) {
  const std::string cuobjdump = find_cuobjdump();
  if (cuobjdump.empty())
    GTEST_SKIP() << "cuobjdump not found (CUDA_PATH, PATH, /usr/local/cuda/bin)";
  // The test binary links the same kernels as mandelpipe; name it by its real path (a
  // child's /proc/self/exe would be cuobjdump itself).
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (int sm : {75, 80, 86, 89, 90}) {
    const std::string arch = "sm_" + std::to_string(sm);
    const std::string text = run(cuobjdump + " -sass -arch " + arch + " '" + self + "' 2>&1");
    const auto functions = sass::parse_cuobjdump(text);
    ASSERT_FALSE(functions.empty()) << "no SASS for " << arch << ":\n" << text.substr(0, 400);
    for (const VariantInfo& v : all_variants()) {
      const sass::Function* f = sass::find_render_kernel(functions, v.type_name);
      ASSERT_NE(f, nullptr) << "no render kernel for " << v.name << " in " << arch;
      const auto loop = sass::find_step_loop(*f);
      ASSERT_TRUE(loop.has_value()) << "no step loop found in " << f->name;
      const InstrMix got = sass::mix_of(*f, *loop);
      std::printf("  %s %-8s loop of %zu instructions: FMA %g ALU %g XU %g FP64 %g other %g\n",
                  arch.c_str(), v.name.data(), loop->last - loop->first + 1, got.fma, got.alu,
                  got.xu, got.fp64, got.other);
      if (sm == 90)
        for (std::size_t i = loop->first; i <= loop->last; ++i)
          std::printf(
              "      %-6s %s %s %s\n", sass::pipe_class_name(sass::classify(f->code[i].base())),
              f->code[i].predicate.c_str(), f->code[i].opcode.c_str(), f->code[i].operands.c_str());
      EXPECT_EQ(got, v.loop.at(sm)) << v.name << " on " << arch;
    }
  }
}

}  // namespace
}  // namespace mp
