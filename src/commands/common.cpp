#include "commands/common.h"

#include "cli/exit_error.h"
#include "io/embedded.h"

namespace mp {

Palette find_palette(const std::string& name) {
  std::string known;
  for (Palette& p : parse_palettes(embedded::palettes_json)) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ExitError(2, "--palette: unknown '" + name + "' (known: " + known + ")");
}

}  // namespace mp
