#include "io/sass_loader.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include <zlib.h>

#include "io/embedded.h"
#include "model/variant_table.h"
#include "version.h"

extern char** environ;

namespace mp {
namespace fs = std::filesystem;

namespace {

// A limit in a message: "60", "0.5".
std::string format_limit(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Runs the program at argv[0] without a shell, so no path is read as shell syntax, and returns
// its stdout and stderr together (cuobjdump says there why it read nothing); nullopt, with
// `error` saying why, if it could not be started, `cancel` was set or it went past `limits`
// (the program is killed).
std::optional<std::string> run_captured(const std::vector<std::string>& argv, std::string& error,
                                        const std::atomic<bool>* cancel, const SassLimits& limits) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::generic_category().message(errno);
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);  // the child's copy alone keeps the pipe open: read() sees its end
  if (spawned != 0) {
    close(fds[0]);
    error = std::generic_category().message(spawned);
    return std::nullopt;
  }
  std::string text;
  std::array<char, 65536> buf;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.max_seconds);
  std::string stopped;  // why the program was killed, if it was
  for (;;) {
    if (cancel && cancel->load()) stopped = "cancelled";
    if (std::chrono::steady_clock::now() > deadline)
      stopped = "stopped after " + format_limit(limits.max_seconds) + " s";
    if (text.size() > limits.max_bytes)
      stopped = "stopped past " + format_limit(limits.max_bytes / 1048576.0) + " MiB of output";
    if (!stopped.empty()) {
      kill(pid, SIGKILL);
      break;
    }
    // Waits in steps of 50 ms, so that a cancel or the deadline is seen while the program
    // writes nothing.
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, 50);
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    if (ready < 0) {  // a read now could block beyond a cancel: stop the program instead
      kill(pid, SIGKILL);
      break;
    }
    // Never past a byte beyond the cap, which is how going past it shows.
    const ssize_t n =
        read(fds[0], buf.data(), std::min(buf.size(), limits.max_bytes + 1 - text.size()));
    if (n > 0)
      text.append(buf.data(), static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (!stopped.empty()) {
    error = stopped;
    return std::nullopt;
  }
  return text;
}

// Every variant's step loop (and the sweep kernels') in cuobjdump's text, into `r`'s maps;
// `only_arch`: those of r.arch's section alone, as a listing of every architecture holds each
// kernel once an architecture and the first would be another chip's.
void find_loops(const std::string& text, LoadedSass& r, bool only_arch) {
  auto functions = sass::parse_cuobjdump(text);
  if (only_arch) {
    const int arch = sass::arch_number(r.arch);
    functions.erase(
        std::remove_if(functions.begin(), functions.end(),
                       [&](const sass::Function& f) { return sass::arch_number(f.arch) != arch; }),
        functions.end());
  }
  auto listing = [](const sass::Function* f) -> std::optional<LoopListing> {
    const auto candidates = f ? sass::step_loop_candidates(*f) : std::vector<sass::Loop>{};
    if (candidates.empty()) return std::nullopt;
    const sass::Loop* loop = &candidates.front();
    LoopListing l;
    l.function = f->name;
    l.arch = sass::arch_number(f->arch);
    l.copies = candidates.size();
    l.code.assign(f->code.begin() + loop->first, f->code.begin() + loop->last + 1);
    l.mix = sass::mix_of(*f, *loop);
    l.branches_within = sass::branches_within(*f, *loop);
    for (const sass::Instruction& i : l.code)
      l.heavy_only += sass::fma_heavy_only(l.arch, i.base());
    return l;
  };
  using sass::KernelBuild;
  for (const VariantInfo& v : all_variants())
    for (KernelBuild b : {KernelBuild::Plain, KernelBuild::Recording, KernelBuild::Resumable})
      if (const sass::Function* f =
              sass::find_render_kernel(functions, sass::mangled_variant(v.type_name), b))
        if (auto l = listing(f)) {
          l->whole = cut_kernel(*f, v.id);
          (b == KernelBuild::Recording   ? r.loops_recording
           : b == KernelBuild::Resumable ? r.loops_resumable
                                         : r.loops)[v.id] = *l;
        }
  for (int m = 1; m <= variants::kMaxSweepSines;
       ++m)  // SinBalance<m>: "variants10SinBalanceILi2EE"
    if (auto l = listing(sass::find_render_kernel(
            functions, "variants10SinBalanceILi" + std::to_string(m) + "EE")))
      r.sin_balance[m] = *l;
}

// The loops of listing `text` into r (of r.arch's section alone where `only_arch`); false, with r
// emptied but for its arch and `source` saying why, where `what` could not be read.
bool read_loops(const std::string& text, LoadedSass& r, const std::string& what,
                bool only_arch = false) {
  try {
    find_loops(text, r, only_arch);
    return true;
  } catch (const std::exception& e) {
    const std::string arch = r.arch;
    r = LoadedSass{};
    r.arch = arch;
    r.source = what + " could not be read: " + e.what();
    return false;
  }
}

// A gzip member, inflated; empty where it is not one.
std::string gunzip(std::string_view gz) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return "";
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  std::array<char, 1 << 16> buf;
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf.data(), buf.size() - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

std::string_view captured_gz(const std::string& arch) {
  if (arch == "sm_75") return embedded::sass_sm_75_gz;
  if (arch == "sm_80") return embedded::sass_sm_80_gz;
  if (arch == "sm_86") return embedded::sass_sm_86_gz;
  if (arch == "sm_89") return embedded::sass_sm_89_gz;
  if (arch == "sm_90") return embedded::sass_sm_90_gz;
  return {};
}

}  // namespace

std::string cuobjdump_missing() {
  return std::string(
             "cuobjdump not found ($CUDA_PATH/bin, /usr/local/cuda/bin, $PATH); it comes "
             "with NVIDIA's CUDA toolkit: apt-get install cuda-cuobjdump-") +
         kCudaPackageVersion + " (NVIDIA's repository; Debian's nvidia-cuda-toolkit has it too)";
}

LoadedSass captured_sass(const std::string& arch, const std::string& why) {
  LoadedSass r;
  r.arch = arch;
  const std::string text = gunzip(captured_gz(arch));
  if (text.empty()) {
    r.source = why + "; no captured SASS of " + arch + " either";
    return r;
  }
  if (!read_loops(text, r, why + "; the captured SASS of " + arch)) return r;
  r.captured = r.ok();
  r.source = r.ok() ? "the SASS the project captured from its " + arch +
                          " build (tests/fixtures/sass), not this executable's: " + why
                    : why + "; no render kernels in the captured SASS of " + arch;
  return r;
}

LoadedSass sass_listing_file(const std::string& path, const std::string& arch) {
  LoadedSass r;
  r.arch = arch;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.source = "could not read " + path;
    return r;
  }
  std::ostringstream raw;
  raw << in.rdbuf();
  std::string text = raw.str();
  // A gzip member starts with 0x1f 0x8b.
  if (text.size() > 2 && text[0] == '\x1f' && text[1] == '\x8b') text = gunzip(text);
  if (text.empty()) {
    r.source = path + " is neither a SASS listing nor a gzip-ed one";
    return r;
  }
  if (!read_loops(text, r, "the SASS of " + path, true)) return r;
  r.source = r.ok() ? "the listing " + path : "no render kernels of " + arch + " in " + path;
  return r;
}

std::string find_cuobjdump() {
  std::vector<fs::path> dirs;
  if (const char* c = std::getenv("CUDA_PATH")) dirs.push_back(fs::path(c) / "bin");
  dirs.push_back("/usr/local/cuda/bin");
  if (const char* p = std::getenv("PATH")) {
    const std::string s = p;
    for (std::size_t a = 0, b; a <= s.size(); a = b + 1) {
      b = s.find(':', a);
      if (b == std::string::npos) b = s.size();
      if (b > a && s[a] == '/') dirs.push_back(s.substr(a, b - a));
    }
  }
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

LoadedSass load_kernel_sass(const std::string& binary, int arch, const std::atomic<bool>* cancel) {
  return load_kernel_sass_limited(binary, arch, cancel, SassLimits{});
}

LoadedSass load_kernel_sass_limited(const std::string& binary, int arch,
                                    const std::atomic<bool>* cancel, const SassLimits& limits) {
  LoadedSass r;
  r.arch = "sm_" + std::to_string(arch >= 90 ? 90 : arch);  // newer GPUs JIT sm_90's PTX
  const std::string tool = find_cuobjdump();
  if (tool.empty()) return captured_sass(r.arch, cuobjdump_missing());
  std::string error;
  const std::optional<std::string> text =
      run_captured({tool, "-sass", "-arch", r.arch, binary}, error, cancel, limits);
  if (!text) {
    r.source = "could not run " + tool + ": " + error;
    return r;
  }
  try {
    find_loops(*text, r, false);
  } catch (const std::exception& e) {
    // Tool output must never take the app down: SASS it cannot model is no SASS, and says why.
    LoadedSass none;
    none.arch = r.arch;
    none.source = "could not read the SASS of " + binary + ": " + e.what();
    return none;
  }
  r.source = r.loops.empty() ? "no render kernels for " + r.arch + " in " + binary + " (" +
                                   text->substr(0, 120) + ")"
                             : "cuobjdump -sass -arch " + r.arch + " of this executable";
  return r;
}

}  // namespace mp
