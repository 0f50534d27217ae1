// sin-ratio's balance point found by measurement: fma4 with 0..4 __sinf per step, each beside
// the model's prediction from its loop's mix.
#pragma once

#include <string>
#include <vector>

#include "app/explorer.h"
#include "app/layout.h"
#include "io/report.h"
#include "session/device.h"

namespace mp {

struct LoadedSass;

class SweepWindow {
 public:
  static constexpr const char* kJob = kMeasuringJobs[2];

  // Queues the sweep, a sine count per window frame, and opens the window. `lease`: the session's
  // renderer, which each step uses while it is lent to the job.
  void request(RunQueue& jobs, GpuLease& lease, const LoadedSass* sass);
  bool shown() const { return shown_; }
  void draw(Explorer& ex, Layout& layout, int arch);

 private:
  bool shown_ = false;
  std::vector<SineSweepRow> rows_;
  std::string error_;
  bool cancelled_ = false;  // the rows stop short of the sweep's end
  bool refit_ = false;      // a result came after the window opened (WindowPlaces::refit)
};

}  // namespace mp
