// The experiments (E): one of the catalogue at a time, its question, the model's prediction, the
// table and a plot of measured against predicted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/explorer.h"
#include "app/layout.h"
#include "model/experiment_report.h"

namespace mp {

class CounterProbe;
struct DeviceInfo;

class ExperimentsWindow {
 public:
  static constexpr const char* kJob = kMeasuringJobs[1];

  // The experiment of that name (a name the command line checked) is the selected one.
  void select(std::string_view name);
  // Queues the selected experiment on `device` (the CUDA path's), or with `all` every one of the
  // catalogue, one after another, each on a worker thread while the window goes on.
  void request(RunQueue& jobs, const DeviceInfo& device, CounterProbe* counters, bool all = false);
  struct Running {
    std::string name;
    double elapsed_s = 0;
  };
  // The experiment on the worker now. It measures the GPU, its kernels and its counters alone:
  // meanwhile the window launches none of its own kernels and reads no counters.
  std::optional<Running> running(const RunQueue& jobs) const;
  // `device`: null on the CPU path, where the window says why nothing runs.
  void draw(bool* open, Explorer& ex, Layout& layout, const DeviceInfo* device,
            CounterProbe* counters);

 private:
  // What the last run of each experiment in the catalogue gave, by its place there.
  struct Result {
    std::optional<ExperimentReport> report;
    std::string error;
  };
  void draw_progress(Explorer& ex);
  // The CPU path: what the model predicts for the selected experiment (the sm_90 build's), which
  // needs no GPU.
  void draw_prediction();

  int index_ = 0;
  std::vector<Result> results_;
  std::vector<int> queued_;  // the experiments of the run under way, in their order
  int finished_ = 0;         // of queued_, those whose results came
  bool cancelled_ = false;   // Cancel while one ran: it finishes, the rest do not start
  std::string stopped_;      // why the last run ended before its last experiment
  bool refit_ = false;       // a result came after the window opened (WindowPlaces::refit)
  // The selected experiment's prediction without a GPU, made once it is selected.
  std::optional<ExperimentReport> prediction_;
};

}  // namespace mp
