// The three things mandelpipe does; each returns the process exit code.
#pragma once

#include <stdexcept>
#include <string>

#include "cli/options.h"

namespace mp {

// A failure the user can act on: printed as one line, exit with `code` (2 bad input or
// environment, 3 needs a GPU); an empty one is not printed (an MPI rank ending as rank 0, which
// said why).
class ExitError : public std::runtime_error {
 public:
  ExitError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

int run_render(const RenderOptions& o);
int run_bench(const BenchOptions& o);
int run_experiment_command(const ExperimentOptions& o);

}  // namespace mp
