// The banner that says when float (or double) can no longer tell neighbouring pixels apart.
#pragma once

#include "app/layout.h"
#include "model/view.h"
#include "variants.h"

namespace mp {

// Drawn only while precision is exhausted at `view`, along the top right of the panel. Returns
// the height it takes there (0 when not drawn), which the pipe overlay keeps clear of.
float draw_precision_banner(const View& view, VariantId variant, int fb_width, int fb_height,
                            const Layout& layout);

}  // namespace mp
