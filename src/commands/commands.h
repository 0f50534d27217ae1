// The three things mandelpipe does; each returns the process exit code.
#pragma once

#include "cli/exit_error.h"
#include "cli/options.h"

namespace mp {

int run_render(const RenderOptions& o);
int run_bench(const BenchOptions& o);
int run_experiment_command(const ExperimentOptions& o);

}  // namespace mp
