// Where each window opens, so that none covers another by default: the panel a column at the
// left; a band along the top right of it kept for the precision banner; the pipe overlay under
// the band at the right, the SASS view bottom right under the overlay; the tool windows (compare,
// experiments, sweep, help) where nothing is when they open, and where the user moves them once
// they do. The arithmetic is src/app/window_places.*; this applies it through ImGui.
#pragma once

#include "app/window_places.h"

namespace mp {

// The windows the layout puts in place itself, every frame.
enum class FixedWindow { Panel, Banner, Overlay, SassView };

struct Layout : ScreenGeometry {
  // For the current font and viewport.
  static Layout current();

  // Starts the frame's placing: the windows drawn after it are placed through `places`, which
  // keeps them from frame to frame. `reset`: every window placed anew (the UI size changed).
  void begin(WindowPlaces& places, bool reset);

  void place_panel() const;
  // Tab hid the panel: its column is kept clear for when it comes back.
  void panel_hidden();
  // Returns the width to wrap the banner's text at.
  float place_banner() const;
  // Returns the width the overlay's content may take: the band beside the panel, less its padding.
  float place_overlay() const;
  // Returns the width to wrap the SASS view's text at.
  float place_sass_view() const;
  // Right after the window's Begin: where it is, for the others to keep clear of.
  void placed(FixedWindow w);

  // ImGui::Begin for a tool window, placed by its `wish`; `refit`: new content (a table that came
  // after the window opened) fits its height anew (WindowPlaces::refit). The caller calls
  // ImGui::End.
  void begin_tool_window(const char* title, bool* open, const WindowWish& wish, bool refit);

 private:
  Rect band() const;
  WindowPlaces* places_ = nullptr;
  bool reset_ = false;
};

}  // namespace mp
