// A place as the user sees it: the view, the step and the colours (what the history keeps and
// the view text writes).
#pragma once

#include <string>

#include "model/palette.h"
#include "model/view.h"
#include "variants.h"

namespace mp {

// Everything that makes a place look as it does: where, how deep, which step and which colours.
struct ViewState {
  View view;
  VariantId variant = VariantId::Fma4;
  std::string palette = "ember";
  ColourParams colour;

  bool operator==(const ViewState& o) const {
    return view == o.view && variant == o.variant && palette == o.palette &&
           colour.density == o.colour.density && colour.offset == o.colour.offset &&
           colour.stripe == o.colour.stripe;
  }
  bool operator!=(const ViewState& o) const { return !(*this == o); }
};

}  // namespace mp
