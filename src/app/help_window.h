// F1: every key and mouse action, from the one list in key_bindings.h.
#pragma once

#include "app/layout.h"

namespace mp {

void draw_help_window(bool* open, Layout& layout);

}  // namespace mp
