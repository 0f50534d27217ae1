// Where the windows go, so that none covers another by default: the arithmetic alone, without
// ImGui, tested in core_tests (tests/window_places_test.cpp); src/app/layout.* applies it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mp {

// A rectangle in ImGui's units (window pixels), y down.
struct Rect {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
  // They share more than an edge.
  bool overlaps(const Rect& o) const {
    return x < o.right() && o.x < right() && y < o.bottom() && o.y < bottom();
  }
  bool inside(const Rect& area) const {
    return x >= area.x && y >= area.y && right() <= area.right() && bottom() <= area.bottom();
  }
};

// The corner of the free room a window keeps to.
enum class Corner { TopLeft, TopRight, BottomLeft, BottomRight };

// What a window would like: its size, the least worth opening it at, and its corner.
struct WindowWish {
  float width = 0, height = 0;
  float min_width = 0, min_height = 0;
  Corner corner = Corner::TopLeft;
};

// The fixed part of the layout, from the viewport and the font alone.
struct ScreenGeometry {
  float x = 0, y = 0, width = 0, height = 0;  // the viewport
  float em = 0;                               // the font's size
  float line = 0;                             // a line of text with the spacing under it
  float pad = 0;                              // between windows and from the edges
  float panel_width = 0;

  static ScreenGeometry of(const Rect& viewport, float em, float line);
  // The viewport within the margin: every window stays inside it.
  Rect area() const { return {x + pad, y + pad, width - 2 * pad, height - 2 * pad}; }
  float right_of_panel() const { return x + pad + panel_width + pad; }
  Rect panel_column() const { return {x + pad, y + pad, panel_width, height - 2 * pad}; }
  // The area the view fills while the panel shows: right of the panel's column, the whole height
  // (the image under the panel is drawn too, and what the view holds is beside it).
  Rect beside_panel() const {
    const float left = panel_column().right();
    return {left, y, x + width - left, height};
  }
  // Right of the panel along the top, kept for the precision banner whether it shows or not (so
  // that nothing jumps when it comes): three lines, or `banner_height` where it was taller.
  Rect banner_band(float banner_height) const;
  // A tool window's wish in ems: its size, the least worth opening it at, and its corner.
  WindowWish wish(float width_em, float height_em, Corner corner = Corner::TopLeft) const;
};

// The pipe overlay's columns: a pipe's name | the model's bar over the counters' | their figures |
// the difference | the history of both | a note ("0.056 ms <- limits"), `gap` apart.
struct OverlayColumns {
  float gap = 0, name = 0, bar = 0, value = 0, diff = 0, plot = 0, note = 0;
  float width() const {
    return name + bar + gap + value + diff + plot + (note > 0 ? gap + note : 0);
  }
};
// The columns within `room` (the band beside the panel, less the window's padding), so that the
// overlay never reaches over the panel: the history narrows (and goes where narrower than half a
// bar), then the bars down to `least_bar`, then the note goes (the limiting pipe's bar keeps its
// red frame). Wider than `room` still only where even the names and figures are.
OverlayColumns fit_overlay_columns(OverlayColumns natural, float room, float least_bar);

// A place for a window inside `area`, `gap` clear of every rectangle in `taken`: of the free
// places that hold its minimum, one that gives it nine tenths of the size it wishes (or the
// most of it), nearest its corner; nothing where no free place holds the minimum.
std::optional<Rect> free_place(const Rect& area, const std::vector<Rect>& taken, float gap,
                               const WindowWish& wish);

// How tall `self` may grow downwards inside `area` before it comes within `gap` of a rectangle
// of `taken` below its top.
float room_below(const Rect& area, const std::vector<Rect>& taken, float gap, const Rect& self);

// Every window's place from frame to frame. Fixed windows (the panel, the precision banner's
// band, the pipe overlay, the SASS view) are where the layout puts them. A movable one (compare,
// experiments, sweep, help) is placed where nothing is when it opens, placed again when a fixed
// window comes over it or the viewport no longer holds it, grows into the room below it until a
// window opens there, and is left alone once the user has moved it. Where the free room is too
// small, a new one opens at its least height under the placed windows, which give up room down
// to their own least for it; only where even that is too small does a window open over another
// movable one (never over a fixed one).
class WindowPlaces {
 public:
  // Each frame, before any window: the area windows keep inside and the gap between them; with
  // `relayout` (the UI size changed) every window is placed anew, those the user moved too.
  void start_frame(const Rect& area, float gap, bool relayout);
  // A window the layout puts in place itself: the others keep clear of it while it is shown.
  void fixed(const std::string& name, const Rect& r);

  struct Placement {
    std::optional<Rect> move_to;  // where the window goes this frame; nothing: it stays
    bool first = false;           // its first time this run: a place imgui.ini holds wins
    bool users = false;           // the user moved it: the place is theirs, and kept
    float max_height = 0;         // its height stays within the room below it
  };
  // For a movable window about to be drawn.
  Placement place(const std::string& name, const WindowWish& wish);
  // Where a movable window is once drawn. Another place than the one given means the user moved
  // it (or imgui.ini had one for it), and it is left there from then on.
  void seen(const std::string& name, const Rect& r);
  // Where a window was last seen, fixed or movable.
  std::optional<Rect> last(const std::string& name) const;
  // It was drawn this frame, so far.
  bool shown(const std::string& name) const;
  // Whether the window fits its height to its content this frame: `asked` (new content came, a
  // table that arrived after it opened) makes it this frame and the next, since imgui measures
  // content a frame late and a single fit leaves out the rows that just came.
  bool refit(const std::string& name, bool asked);

 private:
  struct Window {
    Rect rect;
    std::optional<Rect> given;  // the place it was last put at
    long long seen = -2;        // the frame it was last drawn in; -2: never
    bool fixed = false, users = false;
    float min_height = 0;  // its wish's least
    int refit_frames = 0;  // frames left to fit its height to its content
    // What the others keep clear of: a placed window's rect down to the height it was placed
    // at, or with `squeezed` to its least; the rest of it is room it grew into and gives back.
    Rect footprint(bool squeezed) const;
  };
  // How much of the other windows a new one keeps clear of.
  enum class Clear { Placed, Squeezed, FixedOnly };
  // The windows shown now besides `name`: fixed ones this frame, movable ones this frame or the
  // last (those drawn later in the frame).
  std::vector<Rect> others(const std::string& name, Clear clear) const;
  // Room for `name`, keeping clear of as much of the others as leaves room for its least.
  std::optional<Rect> room_for(const std::string& name, const WindowWish& wish) const;

  std::map<std::string, Window> windows_;
  Rect area_;
  float gap_ = 0;
  long long frame_ = 0;
  bool relayout_ = false;
};

}  // namespace mp
