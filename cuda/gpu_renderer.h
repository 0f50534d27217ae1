// Host interface to the CUDA renderer: device discovery, one measured launch per frame.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel_params.h"
#include "variants.h"

namespace mp {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int peak_clock_khz = 0;  // the SM clock's peak (the driver's figure), for the physical limit
};

// The first CUDA device, or why there is none usable (no driver, no device, ...).
struct DeviceProbe {
  std::optional<DeviceInfo> device;
  std::string reason;
};
DeviceProbe probe_cuda_device();
// Every CUDA device the runtime numbers (CUDA_VISIBLE_DEVICES applied): `count` of them, each
// usable one in `usable` (by index), and for the others, or for none at all, why.
struct DeviceCensus {
  int count = 0;
  std::vector<DeviceInfo> usable;
  std::string reason;  // why a device (or every one) cannot be used; "" where all can
};
DeviceCensus probe_cuda_devices();
// Each device's primary context made, as its first CUDA call would make it, all at once (a
// thread each), so that the threads that then render there find it ready. A device that fails
// here is left to them, which report it.
void start_contexts(const std::vector<DeviceInfo>& devices);
// Each device's primary context destroyed, all at once (a thread each), with whatever it holds:
// for a process whose CUDA work is over, so that the driver's teardown runs while its last
// frames are still being compressed, not after them at exit. A later CUDA call on such a device
// would make its context anew.
void release_contexts(const std::vector<DeviceInfo>& devices);

// The order warps take tiles in. The costliest-first order needs the tile costs of a frame of
// the same view (grid and iteration limit); the first frame of a view goes in numbering order.
enum class TileOrder { Rows, CostliestFirst };

// One launch's measurement, or a frame's summed over its launches (GpuSlicedFrame).
struct GpuFrameStats {
  double kernel_ms = 0;              // CUDA events around the launch
  unsigned long long sm_cycles = 0;  // max over SMs of (last warp end - first warp start)
  double sm_cycles_mean = 0;         // the same span, averaged over the SMs used
  int sms_used = 0;                  // SMs that ran at least one block (of any launch)
  int launches = 0;                  // what the figures are summed over
  int passes = 1;  // over the image: more than one where orbits were cut (GpuSlicedFrame)
  double longest_launch_ms = 0;        // the longest of them
  unsigned long long pixel_iters = 0;  // sum of per-pixel step counts
  unsigned long long warp_iters = 0;   // sum over warps of the warp's max step count
  double warps_launched = 0;           // the launches' warps (blocks x 8), summed
  bool by_cost = false;                // tiles went costliest first, by the previous frame's costs
  // The frame ran the recording kernel: the view's tile costs were not yet this kernel's, or
  // the frame wanted per-pixel counts or per-tile efficiencies.
  bool recording = false;
  // A launch ran the resumable kernel: it went on from orbits cut before, or cut them.
  bool resumable = false;
  // Launches that cut orbits (OrbitSplit): the pixels they finished and those they left
  // unfinished (0 for whole orbits, whose launches finish every pixel they touch and count none).
  unsigned long long pixels_finished = 0;
  unsigned long long pixels_pending = 0;
  // perturb's every-step kernel on the GPU: its warps' rounds, those with a finished lane and
  // those with a rebase (PerturbTally's); -1 for every other frame.
  double perturb_rounds = -1, perturb_done_rounds = -1, perturb_rebase_rounds = -1;
  // Sums the times, cycles, iterations and pixel counts; by_cost where every launch went by cost,
  // recording and resumable where any was.
  GpuFrameStats& operator+=(const GpuFrameStats& s);
};

class GpuRenderer {
 public:
  explicit GpuRenderer(const DeviceInfo& device);
  ~GpuRenderer();
  GpuRenderer(const GpuRenderer&) = delete;
  GpuRenderer& operator=(const GpuRenderer&) = delete;

  const DeviceInfo& device() const;
  // Makes the renderer's device the calling thread's current one: a worker thread that renders
  // with it calls this first (a thread starts on device 0).
  void bind_thread() const;
  void set_tile_order(TileOrder order);
  // The next frame is a view's first: nothing is known about it (its tile costs are forgotten).
  void forget_view();
  TileOrder tile_order() const;

  // Renders into device memory `out` (grid.width * grid.height * kFloatsPerPixel floats) and,
  // if given, per-pixel step counts into `counts` and per-warp SIMT efficiency into
  // `warp_efficiency` (warp_count(grid) floats, layout in kernel_params.h); blocks until
  // the frame's stats are back.
  GpuFrameStats render(VariantId variant, const PixelGrid& grid, unsigned max_iter, float* out,
                       unsigned* counts = nullptr, float* warp_efficiency = nullptr);
  // Tiles [tile_begin, tile_end) of the frame only, whole 16x16 blocks (RenderLaunch in
  // render_kernel.cuh), leaving the rest of the outputs as they were: one launch of a frame cut
  // into several. A view's tile costs become known once launches have covered all its tiles.
  // With split.slots, the launch also cuts orbits at split.budget steps (kernel_params.h).
  GpuFrameStats render_tiles(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                             unsigned tile_begin, unsigned tile_end, float* out, unsigned* counts,
                             float* warp_efficiency, const OrbitSplit& split);
  // The same, for fma4 with `sines` __sinf per step (1..4): the sine-balance sweep.
  GpuFrameStats render_sin_balance(int sines, const PixelGrid& grid, unsigned max_iter, float* out);
  // Tiles the GPU holds at once with the variant's kernel (the resumable build or not): a wave of
  // as many blocks as fit on every SM.
  unsigned resident_tiles(VariantId variant, bool resumable) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  // One launch over tiles [tile_begin, tile_end), timed by the measuring kit, for every render
  // entry above; kernel: which kernel `prepare` picks (a variant, or a sine count), for the tile
  // costs it leaves.
  template <class Prepare>
  GpuFrameStats launch_timed(int kernel, const PixelGrid& grid, unsigned max_iter,
                             unsigned tile_begin, unsigned tile_end, float* out, unsigned* counts,
                             float* warp_efficiency, const OrbitSplit& split, Prepare&& prepare);
};

}  // namespace mp
