// mandelpipe experiment NAME: one of the seeds' experiments, prediction beside measurement.
#include <iostream>

#include "commands/commands.h"
#include "commands/common.h"
#include "lab/experiments.h"
#include "io/experiment_report.h"

namespace mp {

int run_experiment_command(const Options& o) {
  if (o.experiment_list) {
    for (std::string_view name : experiment_names()) std::cout << name << "\n";
    return 0;
  }
  find_experiment(o.experiment, "experiment");
  const DeviceChoice dc = choose_device(false);
  if (!dc.device)
    throw ExitError(
        3, "experiment needs a CUDA GPU: " + dc.cpu_reason.substr(0, dc.cpu_reason.find(';')));
  const std::unique_ptr<CounterProbe> counters = start_counters(o, *dc.device);
  std::cout << format_experiment(run_experiment(o.experiment, *dc.device, counters.get()),
                                 o.format);
  return 0;
}

}  // namespace mp
