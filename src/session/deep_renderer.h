// Deep views for every front end: the frame's pixels by perturbation from the session's current
// reference (session/deep_reference.h), on the GPU's perturbation kernels where there is a GPU,
// else on their CPU reference. The reference itself is made by the caller, on whatever thread
// suits it (the window's worker, render's own thread), and handed over with use().
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gpu_perturbation.h"
#include "gpu_renderer.h"
#include "render/perturbation_cpu.h"
#include "session/deep_reference.h"

namespace mp {

struct DeepStats : PerturbTally {
  DeltaFormat format = DeltaFormat::Double;
  bool gpu = false;
  double ms = 0;  // kernel time on the GPU, wall time on the CPU
  int launches = 0;
  double longest_ms = 0;  // of the launches (or CPU calls)
  // On the GPU: each launch's SM cycles (the longest SM's span, and the SMs' mean span), summed
  // over the launches, the most SMs a launch used; on both paths whether they read the bilinear
  // tables (false: every step iterated, the build the model reads).
  unsigned long long sm_cycles = 0;
  double sm_cycles_mean = 0;
  int sms_used = 0;
  bool approximated = false;
  // Every band's perturb rounds were counted: by the every-step kernel on the GPU, by the CPU
  // reference's warps (render/lockstep_rounds.h) on the CPU.
  bool rounds_counted = false;
  DeepStats& operator+=(const DeepStats& s);
  // The GPU frame's figures as a plain frame's, of the steps run (iterated, not counted), its
  // warps' slowest lanes' as the warp-steps the model counts: what the bound, the overlay and the
  // bench rows read.
  GpuFrameStats frame_stats() const;
};

class DeepRenderer {
 public:
  // With a device, the GPU's kernels (made on the calling thread's current device).
  explicit DeepRenderer(const std::optional<DeviceInfo>& device);
  ~DeepRenderer();
  DeepRenderer(const DeepRenderer&) = delete;
  DeepRenderer& operator=(const DeepRenderer&) = delete;

  bool on_gpu() const { return gpu_ != nullptr; }
  // The warps a launch needs so that none of the GPU's schedulers waits idle while a band's
  // slowest warp runs (0 on the CPU path): a band of fewer takes about that warp's time whatever
  // its rows.
  int fill_warps() const { return fill_warps_; }
  const std::shared_ptr<const DeepReference>& reference() const { return ref_; }
  // The reference later frames use (copied to the GPU before the next one).
  void use(std::shared_ptr<const DeepReference> ref);
  // Off: every step iterated, none skipped by the bilinear approximation (to see what it saves).
  void set_approximation(bool on) { approximate_ = on; }
  bool approximation() const { return approximate_; }

  // The view's pixels in `rect` (of the whole width x height image) from the current reference,
  // which must serve the view: into device memory on the GPU path, host memory on the CPU's.
  // `warp_efficiency`: on the GPU path, the divergence view's buffer (GpuPerturbation::render);
  // the CPU path records none.
  DeepStats render(DeltaFormat format, const View& view, int width, int height, PixelRect rect,
                   float* out, unsigned* counts = nullptr, float* warp_efficiency = nullptr);

 private:
  std::unique_ptr<GpuPerturbation> gpu_;
  std::shared_ptr<const DeepReference> ref_;
  const DeepReference* uploaded_ = nullptr;  // what the GPU holds
  bool approximate_ = true;
  int fill_warps_ = 0;
};

}  // namespace mp
