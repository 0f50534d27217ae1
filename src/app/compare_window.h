// Compare (C): every variant timed at the view on screen, as a table to copy or save.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/explorer.h"
#include "app/layout.h"
#include "io/report.h"
#include "session/device.h"
#include "session/measure.h"

namespace mp {

class CompareWindow {
 public:
  static constexpr const char* kJob = kMeasuringJobs[0];
  // Called once the run ends: `stopped` is empty when every variant was timed, else why not.
  using Finished = std::function<void(const std::string& stopped)>;

  // Queues the timing of every variant at `view`, width x height, each step on the run queue's
  // worker (the window draws meanwhile, its own kernels paused): fma4's step counts first (every
  // row's reference), then one variant a step; the table fills as they come and replaces the
  // last. `lease`: the session's renderer, which each step uses while it is lent to the job.
  void request(Explorer& ex, GpuLease& lease, const View& view, int width, int height,
               const LoadedSass* sass, CounterProbe* counters, Finished finished = nullptr);
  // The table is of this view and size.
  bool current(const View& view, int width, int height) const;
  const std::optional<BenchReport>& report() const { return report_; }
  // The run ended from outside (the window closing, its queue drained first): whoever waits for
  // it is told `why`.
  void abandon(const std::string& why) { finish(why); }

  // Drawn while there is a table; closing it drops the table (and cancels its run). `shown`:
  // the view the window renders now, at width x height; `capture_dir`: where saves go.
  void draw(Explorer& ex, Layout& layout, const View& shown, int width, int height,
            const std::string& capture_dir);

 private:
  void draw_progress(Explorer& ex);
  // Drops the steps not begun; a step on the worker ends the run when its result comes.
  void cancel(Explorer& ex);
  void finish(const std::string& stopped);

  std::optional<BenchReport> report_;
  View view_;
  int width_ = 0, height_ = 0, variants_ = 0;
  // While the run goes on; set and dropped on the window's thread, between the worker's steps.
  std::shared_ptr<VariantMeasurer> measurer_;
  bool cancelled_ = false;  // the step on the worker ends the run
  bool refit_ = false;      // a result came: fit the window's height to it (WindowPlaces::refit)
  std::string stopped_;     // why the table has fewer rows than variants
  Finished finished_;
};

}  // namespace mp
