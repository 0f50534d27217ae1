// The banner: what the window has to tell about the picture, in the band the layout keeps for it
// along the top right of the panel; a line for each matter (precision, memory), in its tone.
#pragma once

#include <string>
#include <vector>

#include "app/layout.h"

namespace mp {

enum class Tone { Info, Warning };

struct BannerLine {
  Tone tone = Tone::Info;
  std::string text;
};

// Drawn while there is a line to show.
void draw_banner(const std::vector<BannerLine>& lines, Layout& layout);

}  // namespace mp
