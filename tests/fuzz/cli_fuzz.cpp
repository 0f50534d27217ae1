// The command line: the input is argv (after the program name), arguments separated by NUL.
// A parse either yields options or exits with help/version text or one error line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.h"
#include "one_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"mandelpipe"};
  std::string arg;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  if (size > 0) args.push_back(arg);
  const mp::ParseResult r = mp::parse_command_line(args);
  if (r.options) return 0;
  if (r.exit_code == 0 && !r.out.empty() && r.err.empty()) return 0;  // --help, --version
  if (r.exit_code != 2) std::abort();                                 // usage errors exit 2
  mp::fuzz::expect_one_line(r.err, "parse_command_line");
  return 0;
}
