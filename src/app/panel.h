// The side panel: what renders, how fast, and how close to the bound the pipes allow, in
// sections that collapse.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "app/explorer.h"
#include "app/key_bindings.h"
#include "app/layout.h"
#include "gl/frame_pipeline.h"
#include "io/sass_loader.h"
#include "model/bookmarks.h"
#include "model/palette.h"
#include "session/deep_session.h"
#include "session/device.h"
#include "session/frame_report.h"

namespace mp {

// B: the name the view is to be saved under, typed in the panel's view section.
struct BookmarkNaming {
  bool open = false;
  bool focus = false;  // the field takes the keyboard when it opens
  std::array<char, 256> name{};
  // ImGui gives the field the keyboard a frame or two after it asks: what is typed after B
  // until then is kept and given to it, so that no letter of a quick typist is lost.
  int frames_waited = -1;  // -1: not waiting
  bool active = false;     // the field held the keyboard last frame
  // Enter or Escape pressed while it did, as the window's key queue saw them: ImGui misses a
  // press and release inside one slow frame.
  bool enter = false, escape = false;
  std::vector<unsigned> typed_early;
};

// The path frames are rendered on, as the panel shows it.
struct PanelPath {
  bool gpu_renderer = false;  // the CUDA path's renderer is there (compare, the sweep, tiles)
  bool on_gpu = false;        // the frames render on it
  TileOrder tile_order = TileOrder::Rows;
  bool refining = false;  // a frame is being rendered, a piece a window frame
  double progress = 0;
  int passes = 1;
  std::string fallback_reason, renderer, present;
};
PanelPath panel_path(const gl::FramePipeline& pipeline, const GpuLease& gpu);

// What the panel shows besides the Explorer, gathered by the App each frame.
// The view's centre as the panel shows it: x and y with every digit their depth needs
// (centre_text, what Ctrl+C copies) where that is short, else their first and last digits, so that
// the lines stay short and the digits that move as one pans show, and then a line with their
// counts ("" where nothing was left out). Made again only when the view changes: a deep centre's
// text takes a moment.
class CentreLines {
 public:
  const std::array<std::string, 3>& of(const View& v);

 private:
  std::optional<View> view_;
  std::array<std::string, 3> lines_;
};

struct PanelInputs {
  const DeviceFacts& facts;  // the device (none on the CPU path), the arch whose mixes are shown
  PanelPath path;
  const GpuLease& gpu_lease;                 // who holds the renderer, changes waiting
  const DeepStatus& deep;                    // deep views: the reference and the perturbation frame
  const std::array<std::string, 3>& centre;  // CentreLines' for the view
  // The last finished frame: measured, modelled, the counters' figures; null before the first.
  const FrameReport* report;
  const LoadedSass* sass;
  // The counters: where their figures come from (or why there are none), whether the sampler
  // itself is refused.
  std::string counters_source;
  bool counters_refused;
  // Why the image and the counters wait (an experiment measures the GPU), or "".
  std::string paused;
  // `report` is of another view, variant or size than the frame rendering now.
  bool of_previous_view;
  // The CPU path: which variant was fastest of those timed at this view, or "".
  std::string fastest_here;
  const std::vector<Palette>& palettes;
  const std::vector<Bookmark>& bookmarks;       // built in
  const std::vector<Bookmark>& user_bookmarks;  // the user's own
  const std::string& user_bookmarks_problem;    // why their file was not read, or ""
  BookmarkNaming& naming;                       // the bookmark's name field, as it is typed into
};

// What the panel's controls ask of the window this frame, done by the App once the panel is
// drawn.
struct PanelActions {
  std::vector<Action> keys;                  // what a key would do: the panel's buttons
  std::optional<View> go_to;                 // a bookmark chosen
  std::optional<std::string> save_bookmark;  // the name typed, Enter pressed
  bool measure_balance = false;              // sin-ratio's sweep, on the CUDA path
  std::optional<TileOrder> tile_order;       // costly tiles first, changed
  // The Explorer's settings the panel's controls changed.
  std::optional<VariantId> variant;  // the user's own
  std::optional<unsigned> max_iter;  // typed: the user's own limit, the automatic one off
  std::optional<bool> auto_iters, live;
  std::optional<int> palette;  // into the App's palettes
  std::optional<ColourParams> colour;
  bool fit_colours = false;  // density and offset fitted to the image (fitted_colours)
  std::optional<float> ui_scale;
};

// How the panel's content fits it, the last frame: its size and, of its content, the right edge
// of the widest line against the room it has (window pixels; widest <= room: nothing clipped).
struct PanelFit {
  float width = 0, height = 0, widest = 0, room = 0;
};
PanelFit draw_panel(bool* open, const Explorer& ex, const PanelInputs& in, PanelActions& actions,
                    Layout& layout);

}  // namespace mp
