// What every window reads and may change: the view explored, the variant, and how frames are
// made and shown. The App renders from it: a frame other than the one shown (the view, the
// variant, the modes: session/frame_key.h) is rendered.
#pragma once

#include <string>

#include "app/history.h"
#include "app/run_queue.h"
#include "model/palette.h"
#include "model/view.h"
#include "variants.h"

namespace mp {

// The jobs that time GPU kernels (compare, an experiment, the sine sweep): one runs at a time,
// so that none is timed beside another's steps.
inline constexpr const char* kMeasuringJobs[] = {"compare", "experiment", "sine sweep"};

struct Explorer {
  View view;
  View home;                 // where Home goes back to
  VariantId variant{};       // rendered
  VariantId own_variant{};   // the user's choice
  bool pin_variant = false;  // automatic precision leaves the user's own variant alone
  bool auto_iters = true;    // the iteration limit raised while the image's edge reaches it
  bool vsync = true;
  bool live = false;  // re-render every frame (live measurement) or only when something changed
  bool divergence = false;
  bool show_panel = true, show_overlay = false, show_sass = false, show_experiments = false,
       show_help = false;
  int palette = 0;  // into the App's palettes
  ColourParams colour;
  float ui_scale = 1;  // on top of the display's content scale
  History frame_ms, render_ms;
  std::string status;  // the last capture, save or refusal, for the panel and compare window
  RunQueue jobs;

  // The measuring job under way, or nullptr.
  const char* measuring() const {
    for (const char* job : kMeasuringJobs)
      if (jobs.pending(job)) return job;
    return nullptr;
  }

  // The user's choice (a key, the panel, a place gone back to): their own variant, rendered
  // unless automatic precision needs a deeper one.
  void set_variant(VariantId v) {
    own_variant = v;
    show_variant(v);
  }
  // The variant rendered: the user's own, or the deeper one automatic precision picked.
  void show_variant(VariantId v) {
    if (variant == v) return;
    variant = v;
    render_ms.clear();  // another kernel's times would mislead the plot
  }
  void set_view(const View& v) {
    if (v == view) return;
    if (v.max_iter != view.max_iter) render_ms.clear();
    view = v;
  }
};

}  // namespace mp
