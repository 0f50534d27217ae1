// mandelpipe experiment NAME: one of the seeds' experiments, prediction beside measurement.
#include <algorithm>
#include <iostream>

#include "commands/commands.h"
#include "commands/common.h"
#include "experiments.h"

namespace mp {
namespace {

std::string known_experiments() {
  std::string s;
  for (std::string_view n : experiment_names()) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

}  // namespace

int run_experiment_command(const Options& o) {
  const auto& names = experiment_names();
  if (std::find(names.begin(), names.end(), o.experiment) == names.end())
    throw ExitError(
        2, "experiment: unknown '" + o.experiment + "' (known: " + known_experiments() + ")");
  const DeviceChoice dc = choose_device(false);
  if (!dc.device)
    throw ExitError(
        3, "experiment needs a CUDA GPU: " + dc.cpu_reason.substr(0, dc.cpu_reason.find(';')));
  std::cout << format_experiment(run_experiment(o.experiment, *dc.device), o.format);
  return 0;
}

}  // namespace mp
