// mandelpipe experiment NAME: one of the seeds' experiments, prediction beside measurement.
#include <algorithm>
#include <iostream>

#include "commands/commands.h"
#include "io/experiment_report.h"
#include "lab/experiments.h"
#include "session/counter_feed.h"
#include "session/device.h"

namespace mp {

int run_experiment_command(const ExperimentOptions& o) {
  if (o.list) {  // a line each: the name (what scripts take), then what it asks
    std::size_t widest = 0;
    for (const ExperimentInfo& e : experiment_catalogue()) widest = std::max(widest, e.name.size());
    for (const ExperimentInfo& e : experiment_catalogue())
      std::cout << e.name << std::string(widest + 2 - e.name.size(), ' ') << e.title << "\n";
    return 0;
  }
  const DeviceChoice dc = choose_device(false);
  if (!dc.device) {
    // The prediction needs no GPU: the model's for the sm_90 build, on stdout where the
    // format is the one people read (CSV and JSON stay a measurement's, or nothing).
    const std::string why = dc.cpu_reason.substr(0, dc.cpu_reason.find(';'));
    const ExperimentReport predicted = predict_experiment(o.name, device_without_gpu());
    const bool shown = o.format == OutputFormat::Markdown;
    if (shown) std::cout << format_prediction(predicted, "needs a CUDA GPU (" + why + ")");
    throw ExitError(3, "experiment needs a CUDA GPU to measure: " + why +
                           (!shown                   ? ""
                            : predicted.rows.empty() ? " (above: what its prediction rests on)"
                                                     : " (the model's prediction is above)"));
  }
  const std::unique_ptr<CounterProbe> counters =
      start_counters(o.counters, o.counter_interval_us, *dc.device);
  std::cout << format_experiment(run_experiment(o.name, *dc.device, counters.get()), o.format);
  return 0;
}

}  // namespace mp
