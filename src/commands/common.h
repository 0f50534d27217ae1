// What the commands share besides the session: the palette a command line names.
#pragma once

#include <string>

#include "model/palette.h"

namespace mp {

// The palette named on the command line; ExitError(2) listing the known ones otherwise.
Palette find_palette(const std::string& name);

}  // namespace mp
