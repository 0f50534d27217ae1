#include "io/sass_loader.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "model/variant_table.h"

namespace mp {
namespace fs = std::filesystem;

std::string find_cuobjdump() {
  std::vector<fs::path> dirs;
  if (const char* c = std::getenv("CUDA_PATH")) dirs.push_back(fs::path(c) / "bin");
  if (const char* p = std::getenv("PATH")) {
    const std::string s = p;
    for (std::size_t a = 0, b; a <= s.size(); a = b + 1) {
      b = s.find(':', a);
      if (b == std::string::npos) b = s.size();
      if (b > a) dirs.push_back(s.substr(a, b - a));
    }
  }
  dirs.push_back("/usr/local/cuda/bin");
  for (const fs::path& d : dirs) {
    std::error_code ec;
    if (fs::is_regular_file(d / "cuobjdump", ec)) return (d / "cuobjdump").string();
  }
  return "";
}

std::string self_executable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

LoadedSass load_kernel_sass(const std::string& binary, int sm) {
  LoadedSass r;
  r.arch = "sm_" + std::to_string(sm >= 90 ? 90 : sm);  // newer GPUs JIT sm_90's PTX
  const std::string tool = find_cuobjdump();
  if (tool.empty()) {
    r.source = "cuobjdump not found ($CUDA_PATH/bin, $PATH, /usr/local/cuda/bin)";
    return r;
  }
  const std::string cmd = "'" + tool + "' -sass -arch " + r.arch + " '" + binary + "' 2>&1";
  std::string text;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) {
      r.source = "could not run " + tool;
      return r;
    }
    std::array<char, 65536> buf;
    for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), pipe.get())) > 0;)
      text.append(buf.data(), n);
  }
  const auto functions = sass::parse_cuobjdump(text);
  auto listing = [](const sass::Function* f) -> std::optional<LoopListing> {
    const auto candidates = f ? sass::step_loop_candidates(*f) : std::vector<sass::Loop>{};
    if (candidates.empty()) return std::nullopt;
    const sass::Loop* loop = &candidates.front();
    LoopListing l;
    l.sm = sass::sm_of(f->arch);
    l.copies = candidates.size();
    l.code.assign(f->code.begin() + loop->first, f->code.begin() + loop->last + 1);
    l.mix = sass::mix_of(*f, *loop);
    for (const sass::Instruction& i : l.code) l.heavy_only += sass::fma_heavy_only(l.sm, i.base());
    return l;
  };
  for (const VariantInfo& v : all_variants())
    for (bool recording : {false, true})
      if (auto l = listing(
              sass::find_render_kernel(functions, sass::mangled_variant(v.type_name), recording)))
        (recording ? r.loops_recording : r.loops)[v.id] = *l;
  for (int m = 1; m <= variants::kMaxSweepSines;
       ++m)  // SinBalance<m>: "variants10SinBalanceILi2EE"
    if (auto l = listing(sass::find_render_kernel(
            functions, "variants10SinBalanceILi" + std::to_string(m) + "EE")))
      r.sin_balance[m] = *l;
  r.source = r.loops.empty() ? "no render kernels for " + r.arch + " in " + binary + " (" +
                                   text.substr(0, 120) + ")"
                             : "cuobjdump -sass -arch " + r.arch + " of this executable";
  return r;
}

}  // namespace mp
