// mandelpipe with no subcommand: the interactive window. Returns the process exit code.
#pragma once

#include "cli/options.h"

namespace mp {

int run_window(const WindowOptions& o);

}  // namespace mp
