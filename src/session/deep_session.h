// Deep views in the window: the reference made on a worker thread (never in the frame loop;
// dropped for a view it would not serve), the frame rendered a band at a time once it is there,
// and what the panel shows of both. The window keeps drawing the previous image, moved into
// place (deep_preview_grids), meanwhile.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "session/deep_sliced_frame.h"

namespace mp {

struct DeepStatus {
  bool active = false;  // the view renders by perturbation
  DeltaFormat format = DeltaFormat::Double;
  // The reference: being made (its share done and seconds so far), or the one in use.
  bool reference_pending = false;
  double reference_done = 0, reference_s = 0;
  const DeepReference* reference = nullptr;
  bool refining = false;          // the frame's bands are not all in
  double progress = 0;            // of the frame's bands
  std::optional<DeepStats> last;  // the last finished frame
  double longest_ms = 0;          // the longest band (launch) of any frame so far
};

class DeepSession {
 public:
  explicit DeepSession(const std::optional<DeviceInfo>& device);
  ~DeepSession();  // cancels a reference being made and waits for its worker to see it
  DeepSession(const DeepSession&) = delete;
  DeepSession& operator=(const DeepSession&) = delete;

  // A frame of this view wanted at this size: from the reference in use where it serves, else
  // once a worker has made one (a worker making one for a view it would not serve is dropped).
  void start(const View& view, int width, int height, DeltaFormat format);
  // Leaving deep views: the worker is dropped and nothing more renders.
  void stop();
  // Takes a reference the worker finished, then renders about target_ms of the frame into `out`
  // (the surface's memory: device memory on the GPU path), and the divergence view's figures
  // into `warp_efficiency` where given (GPU path). The frame's stats once it is done.
  std::optional<DeepStats> step(float* out, double target_ms, float* warp_efficiency = nullptr);
  // Whether step() has work: a frame refining or a reference being made for it.
  bool busy() const;
  // Whether the next step() renders a band: the reference is in hand, the frame not done.
  bool rendering() const { return wanted_ && !worker_ && !frame_.done(); }
  const DeepStatus& status() const { return status_; }
  DeepRenderer& renderer() { return renderer_; }

 private:
  struct Worker {
    std::shared_ptr<std::atomic<bool>> cancel;
    std::shared_ptr<std::atomic<double>> done;
    std::future<std::shared_ptr<const DeepReference>> result;
    View view;
    int width = 0, height = 0;
    std::chrono::steady_clock::time_point start;
  };
  void launch_worker(const View& view, int width, int height);
  void reap_dropped();
  // Each row's time in the last finished frame where that was of the same place as `view` (at
  // any limit) at this size and format; empty where it was not.
  std::vector<float> expected_row_ms(const View& view, int width, int height,
                                     DeltaFormat format) const;

  DeepRenderer renderer_;
  std::optional<Worker> worker_;
  std::vector<Worker> dropped_;  // cancelled, their futures waited for once ready
  View view_;
  int width_ = 0, height_ = 0;
  bool wanted_ = false;  // a frame of view_ is to be rendered
  // A row's time in the last frame from the reference in use, at that width and format: the next
  // frame's first band is sized by it.
  double hint_ms_per_row_ = 0;
  int hint_width_ = 0;
  DeltaFormat hint_format_ = DeltaFormat::Double;
  // The last finished frame's rows' times, and what it was a frame of.
  struct RowTimes {
    View view;
    int width = 0, height = 0;
    DeltaFormat format = DeltaFormat::Double;
    std::vector<float> ms;
  };
  std::optional<RowTimes> row_times_;
  DeepSlicedFrame frame_;
  DeepStatus status_;
};

// The previous image's place in the new one, for the preview a new view shows while it
// renders: both grids in the new view's pixels about its centre, so that they stay within
// double's range at any depth; after a jump far beyond it, a place that covers none of the new
// pixels (they show as unknown).
std::pair<PixelGrid, PixelGrid> deep_preview_grids(const View& shown, const View& next, int width,
                                                   int height);

}  // namespace mp
