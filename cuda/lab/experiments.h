// The experiments lab: small GPU experiments, each a question from the seeds answered by a
// model's prediction beside a measurement taken at run time. Host API, plain C++.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpu_renderer.h"
#include "instr_mix.h"
#include "model/counter_figures.h"
#include "model/experiment_report.h"

namespace mp {

struct ExperimentInfo {
  std::string_view name, title, question;
};

// The experiments in the order of the UI: the one list that the command (`experiment --list`),
// its errors, the window and the scripts read (entries in catalogue.cu).
const std::vector<ExperimentInfo>& experiment_catalogue();
const std::vector<std::string_view>& experiment_names();

// Runs one experiment on `device` (blocking; each takes well under 2 s on an H200), on the
// calling thread, which it sets to `device` (the window runs it on a worker thread), with the
// hardware counters' figures beside each measured kernel where `counters` is given. Throws
// std::invalid_argument for an unknown name (the message lists the known ones) and
// mp::CudaError when the GPU fails.
ExperimentReport run_experiment(std::string_view name, const DeviceInfo& device,
                                CounterProbe* counters = nullptr);

// What the model predicts for experiment `name` on a GPU like `device`, no kernel run (the CPU
// path prints it; host arithmetic only): rows with the prediction and no measurement (`measured`
// 0), and `model`, what it rests on. An experiment whose prediction itself rests on what it
// measures (the launch overhead, the times of one and two targets, the steps left to iterate)
// has no rows, and `conclusion` says what the measurement is. Throws std::invalid_argument for
// an unknown name.
ExperimentReport predict_experiment(std::string_view name, const DeviceInfo& device);

// The instruction mix each throughput kernel declares for one iteration of its inner loop on
// `arch` (10 x compute capability, sm_90: 90), and the kernel it belongs to (a fragment of its
// mangled name): what the predictions use and what tests/experiment_gpu_test.cpp checks against
// cuobjdump.
struct DeclaredLoop {
  std::string kernel;
  InstrMix mix;
};
std::vector<DeclaredLoop> declared_loops(int arch);

}  // namespace mp
