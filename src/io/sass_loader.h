// The SASS of the kernels this process actually runs, read at run time with cuobjdump.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "model/kernel_parts.h"
#include "model/sass.h"
#include "variants.h"

namespace mp {

struct LoopListing {
  std::string function;                 // the kernel it is the loop of, mangled (as CUPTI names it)
  int arch = 0;                         // the SASS's arch (sm_90: 90), whose pipe table counts
  std::vector<sass::Instruction> code;  // the step loop, in order
  InstrMix mix;                         // its instructions by pipe (the whole loop body)
  double heavy_only = 0;                // of mix.fma, those only fmaheavy executes (IMAD & co.)
  std::size_t copies = 1;               // step loops found; above 1 the first one is modelled
  std::size_t branches_within = 0;      // sass::branches_within: above 0, paths a trip chooses
  KernelCut whole;  // the whole kernel's listing in parts (the whole-kernel model's), or why not
};

struct LoadedSass {
  std::string arch;    // "sm_90"
  std::string source;  // what was read, or why nothing was ("cuobjdump not found ...")
  // The listings are the SASS the project captured from its own build of `arch` (compiled into
  // the program), not this executable's: cuobjdump was not there to read it.
  bool captured = false;
  // render_kernel<V, false>: what frames run once the tile costs of their view are known.
  std::map<VariantId, LoopListing> loops;
  // render_kernel<V, true>, which also records the tile costs (a view's first frame) and the
  // divergence view's per-pixel counts and per-tile efficiencies: ptxas may give it another loop.
  std::map<VariantId, LoopListing> loops_recording;
  // resumable_kernel<V>: the window's launches of a frame whose orbits are cut (GpuSlicedFrame).
  std::map<VariantId, LoopListing> loops_resumable;
  std::map<int, LoopListing> sin_balance;  // the sweep kernels, by sines per step
  bool ok() const { return !loops.empty(); }
  // The step loop of the build of the kernel a frame ran, or null.
  const LoopListing* loop(VariantId v, sass::KernelBuild build) const {
    const auto& m = build == sass::KernelBuild::Recording   ? loops_recording
                    : build == sass::KernelBuild::Resumable ? loops_resumable
                                                            : loops;
    const auto it = m.find(v);
    return it == m.end() ? nullptr : &it->second;
  }
};

// cuobjdump from $CUDA_PATH/bin, /usr/local/cuda/bin, then $PATH's absolute entries (a relative
// one would run whatever the working folder holds); "" if none.
std::string find_cuobjdump();

// How much of cuobjdump's output is read and how long it may take: this program's SASS for one
// arch is a few MB and takes seconds, so past these it is not the tool we expect.
struct SassLimits {
  std::size_t max_bytes = std::size_t{256} << 20;
  double max_seconds = 60;
};
// Runs cuobjdump on `binary` for `arch` (sm_90: 90) and finds every variant's step loop; where
// cuobjdump is not installed, reads the SASS the project captured from its build of that
// architecture instead (captured, and `source` says so and which package brings cuobjdump).
// Never throws: failures are described in `source`. Takes from a few hundred ms to seconds (a big
// binary on a GPU machine): call it off the UI thread. Once `cancel` is set, cuobjdump is stopped
// and nothing is loaded, so that a window closing need not wait for it; past `limits` it is
// stopped too, and `source` says which limit.
LoadedSass load_kernel_sass_limited(const std::string& binary, int arch,
                                    const std::atomic<bool>* cancel, const SassLimits& limits);
// The same within the default limits (a plain function, for std::async).
LoadedSass load_kernel_sass(const std::string& binary, int arch,
                            const std::atomic<bool>* cancel = nullptr);
// A listing cuobjdump wrote before (`cuobjdump -sass -arch sm_90 BUILD > FILE`, gzip-ed or not: a
// device run's carried listing), read as the SASS of `arch` ("sm_90"). Never throws: failures
// are described in `source`.
LoadedSass sass_listing_file(const std::string& path, const std::string& arch);
// The captured SASS of `arch` ("sm_90") alone, as the fallback reads it; `why` goes in `source`.
LoadedSass captured_sass(const std::string& arch, const std::string& why);
// cuobjdump's place, as the tool that reads SASS: "cuobjdump not found (...); it comes with
// NVIDIA's CUDA toolkit, apt-get install cuda-cuobjdump-13-0 ...".
std::string cuobjdump_missing();
// The running executable's path (/proc/self/exe resolved).
std::string self_executable();

}  // namespace mp
