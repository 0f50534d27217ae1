// What a frame is of, as the window, its report and the decision to render compare it.
#pragma once

#include "model/view.h"
#include "variants.h"

namespace mp {

// What a frame is of: its view (the whole image rendered), variant, size and modes.
struct FrameOf {
  View view;
  VariantId variant{};
  int width = 0, height = 0;
  bool divergence = false;    // per-warp SIMT efficiency recorded too
  bool perturbation = false;  // rendered by perturbation (a deep view)
  // The same pixels of the same place: view and size (whatever renders them).
  bool same_place(const FrameOf& o) const {
    return view == o.view && width == o.width && height == o.height;
  }
  bool operator==(const FrameOf& o) const {
    return same_place(o) && variant == o.variant && divergence == o.divergence &&
           perturbation == o.perturbation;
  }
  bool operator!=(const FrameOf& o) const { return !(*this == o); }
};

}  // namespace mp
