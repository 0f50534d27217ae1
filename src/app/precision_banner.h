// The banner that says when the app moved to a deeper variant for precision, and when float (or
// double) can no longer tell neighbouring pixels apart.
#pragma once

#include "app/layout.h"
#include "model/precision_choice.h"
#include "model/view.h"

namespace mp {

// Drawn while `choice` renders a deeper variant than the user's or precision is exhausted at
// `view`, in the band the layout keeps for it along the top right of the panel.
void draw_precision_banner(const View& view, const PrecisionChoice& choice, int fb_width,
                           int fb_height, Layout& layout);

}  // namespace mp
