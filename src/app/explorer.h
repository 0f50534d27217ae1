// What every window reads and may change: the view explored, the variant, and how frames are
// made and shown. The App renders from it; whatever changes the picture sets `dirty`.
#pragma once

#include <string>

#include "app/history.h"
#include "app/run_queue.h"
#include "model/palette.h"
#include "model/view.h"
#include "variants.h"

namespace mp {

struct Explorer {
  View view;
  View home;  // where Home goes back to
  VariantId variant{};
  bool vsync = true;
  bool live = false;  // re-render every frame (live measurement) or only when something changed
  bool divergence = false;
  bool dirty = true;
  bool show_panel = true, show_overlay = false, show_sass = false, show_experiments = false,
       show_help = false;
  int palette = 0;  // into the App's palettes
  ColourParams colour;
  float ui_scale = 1;  // on top of the display's content scale
  History frame_ms, render_ms;
  std::string status;  // the last capture, save or refusal, for the panel and compare window
  RunQueue jobs;

  void set_variant(VariantId v) {
    if (variant == v) return;
    variant = v;
    render_ms.clear();  // another kernel's times would mislead the plot
    dirty = true;
  }
  void set_view(const View& v) {
    if (v == view) return;
    if (v.max_iter != view.max_iter) render_ms.clear();
    view = v;
    dirty = true;
  }
};

}  // namespace mp
