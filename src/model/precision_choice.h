// Automatic precision: the variant that renders a view, from the user's own choice and how many
// mantissa bits the view's pixel spacing needs (float, then df64 or fp64, whichever is faster).
#pragma once

#include <optional>
#include <string>

#include "model/view.h"
#include "variants.h"

namespace mp {

struct ComputeCapability {
  int major = 0, minor = 0;
};

struct PrecisionChoice {
  VariantId variant{};     // to render
  bool deeper = false;     // not the user's own: moved to one with more mantissa bits
  bool exhausted = false;  // even `variant` cannot separate neighbouring pixels
  std::string why;         // one sentence for the banner; empty while the user's own holds
};

// `cc`: the GPU's, or none on the CPU path. `current`: the variant rendered now; a deeper one
// stays until the user's own would hold at half the span, so that a view on the edge does not
// switch back and forth. A pinned variant is the user's own whatever the view.
PrecisionChoice choose_precision(const View& view, int width, int height, VariantId current,
                                 VariantId own, bool pinned, std::optional<ComputeCapability> cc);

}  // namespace mp
