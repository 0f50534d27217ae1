// The experiments (E): one of the catalogue at a time, its question, the model's prediction, the
// table and a plot of measured against predicted.
#pragma once

#include <optional>
#include <string>

#include "app/explorer.h"
#include "app/layout.h"
#include "io/experiment_report.h"

namespace mp {

class CounterProbe;
struct DeviceInfo;

class ExperimentsWindow {
 public:
  static constexpr const char* kJob = "experiment";

  void select(int index) { index_ = index; }
  // Queues the selected experiment on `device` (the CUDA path's).
  void request(RunQueue& jobs, const DeviceInfo& device, CounterProbe* counters);
  // `device`: null on the CPU path, where the window says why nothing runs.
  void draw(bool* open, Explorer& ex, const Layout& layout, const DeviceInfo* device,
            CounterProbe* counters);

 private:
  int index_ = 0;
  std::optional<ExperimentReport> report_;
  std::string error_;
  bool refit_ = false;  // a result came after the window opened: fit its height to it once
};

}  // namespace mp
