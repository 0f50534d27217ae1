// The side panel: what renders, how fast, and how close to the bound the pipes allow, in
// sections that collapse.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/explorer.h"
#include "app/key_bindings.h"
#include "app/layout.h"
#include "commands/common.h"
#include "gl/frame_pipeline.h"
#include "io/sass_loader.h"
#include "model/bookmarks.h"
#include "model/counter_figures.h"
#include "model/metrics.h"
#include "model/palette.h"
#include "model/pipe_rates.h"
#include "session/deep_session.h"
#include "session/renderer_lease.h"

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

// What the panel shows besides the Explorer it edits, gathered by the App each frame.
struct PanelInputs {
  const DeviceChoice& device;
  gl::FramePipeline& pipeline;
  RendererLease<GpuRenderer>& gpu_lease;  // changes to the renderer go through it
  const DeepStatus& deep;                 // deep views: the reference and the perturbation frame
  const std::optional<PipeRates>& rates;
  const gl::FrameMeasurement& last;
  const std::optional<Metrics>& metrics;
  const LoadedSass* sass;
  int arch;  // 10 x compute capability whose mixes are shown
  // The counters: where their figures come from (or why there are none), whether the sampler
  // itself is refused, and the newest figures.
  std::string counters_source;
  bool counters_refused;
  const std::optional<CounterFigures>& counter_figures;
  // Why the image and the counters wait (an experiment measures the GPU), or "".
  std::string paused;
  // `last` is of another view, variant or size than the frame rendering now.
  bool of_previous_view;
  // The CPU path: which variant was fastest of those timed at this view, or "".
  std::string fastest_here;
  const std::vector<Palette>& palettes;
  const std::vector<Bookmark>& bookmarks;       // built in
  const std::vector<Bookmark>& user_bookmarks;  // the user's own
  const std::string& user_bookmarks_problem;    // why their file was not read, or ""
  BookmarkNaming& naming;
  std::function<bool(const std::string&)> save_bookmark;  // false: not saved, the status says why
  std::function<void(const View&)> go_to;                 // a bookmark chosen
  std::function<void()> measure_balance;                  // sin-ratio's sweep, on the CUDA path
  std::function<void(Action)> act;  // what a key would do, for the panel's buttons
};

// How the panel's content fits it, the last frame: its size and, of its content, the right edge
// of the widest line against the room it has (window pixels; widest <= room: nothing clipped).
struct PanelFit {
  float width = 0, height = 0, widest = 0, room = 0;
};
PanelFit draw_panel(bool* open, Explorer& ex, const PanelInputs& in, Layout& layout);

}  // namespace mp
