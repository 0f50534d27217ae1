// Where each window opens, so that none covers another by default: the panel a column at the
// left; the precision banner along the top right of it, the pipe overlay under the banner at the
// right and the SASS view bottom right; tool windows (compare, experiments, sweep, help) right
// of the panel, left of the overlay where there is room.
#pragma once

#include "model/view.h"

namespace mp {

// In ImGui's units (window pixels), for the current font and viewport.
struct Layout {
  float pad;          // between windows and from the edges
  float panel_width;  // the panel's column
  float overlay_width;
  float x, y, width, height;  // the viewport
  bool reset = false;  // place every window anew (the UI size changed), not only on first use
  bool overlay_shown = false;

  // scale: the display's content scale times the UI size (the overlay's bars follow it).
  static Layout current(float scale);
  float right_of_panel() const { return x + pad + panel_width + pad; }

  void place_panel() const;
  // Returns the width to wrap the banner's text at.
  float place_banner() const;
  // `refit`: new content (a table that came after the window opened) fits the height anew.
  // Left of the overlay, where it is shown and that leaves the window room.
  void place_tool_window(float preferred_width, bool refit) const;
  // The help window: at the right edge, where it leaves the tool windows in view.
  void place_help_window(float preferred_width) const;
};

// The starting view moved and scaled so that the whole set lies right of the panel, where the
// panel would otherwise cover its left part: `panel_right` in framebuffer pixels.
View fit_set_beside_panel(View v, int fb_width, int fb_height, double panel_right);

}  // namespace mp
