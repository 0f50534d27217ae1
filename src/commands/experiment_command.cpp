// mandelpipe experiment NAME: one of the seeds' experiments, prediction beside measurement.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands/commands.h"
#include "io/experiment_report.h"
#include "io/table_text.h"
#include "lab/experiments.h"
#include "session/counter_feed.h"
#include "session/device.h"

namespace mp {

int run_experiment_command(const ExperimentOptions& o) {
  if (o.list) {  // a line each: the name (what scripts take), then what it asks
    if (o.format == OutputFormat::Json) {
      nlohmann::json list = nlohmann::json::array();
      for (const ExperimentInfo& e : experiment_catalogue())
        list.push_back({{"name", e.name}, {"title", e.title}});
      std::cout << list.dump(2) << "\n";
      return 0;
    }
    if (o.format == OutputFormat::Csv) {
      std::cout << "name,title\n";
      for (const ExperimentInfo& e : experiment_catalogue())
        std::cout << csv_field(std::string(e.name)) << "," << csv_field(std::string(e.title))
                  << "\n";
      return 0;
    }
    std::size_t widest = 0;
    for (const ExperimentInfo& e : experiment_catalogue()) widest = std::max(widest, e.name.size());
    for (const ExperimentInfo& e : experiment_catalogue())
      std::cout << e.name << std::string(widest + 2 - e.name.size(), ' ') << e.title << "\n";
    return 0;
  }
  const DeviceChoice dc = choose_device(false);
  if (!dc.device) {
    // The prediction needs no GPU: the model's for the sm_90 build, in the format asked for (its
    // measured column empty), and the exit says the measurement could not be made.
    const std::string why = dc.cpu_reason.substr(0, dc.cpu_reason.find(';'));
    const ExperimentReport predicted = predict_experiment(o.name, device_without_gpu());
    std::cout << format_prediction(predicted, "needs a CUDA GPU (" + why + ")", o.format);
    throw ExitError(3, "experiment needs a CUDA GPU to measure: " + why +
                           (predicted.rows.empty() ? " (what its prediction rests on is on stdout)"
                                                   : " (the model's prediction is on stdout)"));
  }
  const std::unique_ptr<CounterProbe> counters =
      start_counters(o.counters, o.counter_interval_us, *dc.device);
  std::cout << format_experiment(run_experiment(o.name, *dc.device, counters.get()), o.format);
  return 0;
}

}  // namespace mp
