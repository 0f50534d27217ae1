#include <exception>
#include <iostream>

#include "cli/options.h"
#include "commands/commands.h"

int main(int argc, char** argv) {
  const mp::ParseResult parsed = mp::parse_command_line({argv, argv + argc});
  if (!parsed.options) {
    std::cout << parsed.out;
    if (!parsed.err.empty()) std::cerr << "mandelpipe: " << parsed.err << "\n";
    return parsed.exit_code;
  }
  const mp::Options& o = *parsed.options;
  try {
    switch (o.command) {
      case mp::Command::Window: return mp::run_window(o);
      case mp::Command::Render: return mp::run_render(o);
      case mp::Command::Bench: return mp::run_bench(o);
      case mp::Command::Experiment: return mp::run_experiment_command(o);
    }
  } catch (const mp::ExitError& e) {
    std::cerr << "mandelpipe: " << e.what() << "\n";
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << "mandelpipe: error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
