// The banner's lines that say when the app moved to a deeper variant for precision, and when
// float (or double) can no longer tell neighbouring pixels apart.
#pragma once

#include <vector>

#include "app/banner.h"
#include "model/precision_choice.h"
#include "model/view.h"

namespace mp {

// Lines while `choice` renders a deeper variant than the user's or precision is exhausted at
// `view`; none otherwise.
std::vector<BannerLine> precision_banner_lines(const View& view, const PrecisionChoice& choice,
                                               int fb_width, int fb_height);

}  // namespace mp
