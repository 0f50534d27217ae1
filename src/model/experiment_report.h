// An experiment's result: prediction beside measurement, row by row. Filled by run_experiment
// (cuda/lab/experiments.h) and formatted by io/experiment_report.h; plain data, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/counter_figures.h"

namespace mp {

struct ExperimentRow {
  std::string label;
  std::optional<double> predicted;  // empty: measured only (a baseline, a compiler's choice)
  double measured = 0;
  std::string unit;
  std::string note;
  // Empty: not read (not asked for, or a derived row such as a ratio); initialised so that rows
  // brace-initialised without it stay clear of -Wmissing-field-initializers.
  std::optional<CounterFigures> counters = std::nullopt;
  // Each pipe's busy share by the model for the row's kernel, % (beside the counters).
  std::vector<CounterPipe> model_busy = {};
  // measured / predicted: for cycles and times 1.0 is "at the model", above it slower.
  std::optional<double> ratio() const {
    if (!predicted || *predicted == 0) return std::nullopt;
    return measured / *predicted;
  }
};

struct ExperimentReport {
  std::string name;  // as in experiment_names()
  std::string title;
  std::string device;    // "NVIDIA H200 (sm_90, 132 SMs)"
  std::string question;  // what the experiment answers, and which seed asked it
  std::string model;     // what the predictions rest on: pipe rates, latencies, formulas
  std::vector<ExperimentRow> rows;
  std::string conclusion;  // written from the measured numbers at run time
};

}  // namespace mp
