// Automatic precision, the one rule the window, render and bench follow: what renders a view,
// from the user's own choice and how many mantissa bits the view's pixel spacing needs: float,
// then df64 or fp64 (whichever is faster), then perturbation from a reference orbit, its
// differences in double while the pixel spacing is within double's range and in the extended
// range (floatexp.h) past it; in float with an exponent of their own at any depth where the
// GPU's FP64 is slow.
#pragma once

#include <optional>
#include <string>

#include "model/view.h"
#include "perturbation.h"
#include "variants.h"

namespace mp {

struct ComputeCapability {
  int major = 0, minor = 0;
};

struct PrecisionChoice {
  VariantId variant{};  // what renders the view
  // Set where `variant` is a perturbation one: the format of its differences.
  std::optional<DeltaFormat> perturbation;
  bool deeper = false;     // not the user's own: moved to one with more mantissa bits
  bool exhausted = false;  // even what renders cannot separate neighbouring pixels
  // One sentence for the banner; empty while the user's own holds. Where it moved from the user's
  // own, `own` is what pinning keeps (each front end names its own way to pin).
  std::string why;
  VariantId own{};
};

// Pixel spacings from 2^-990 up keep a pixel's difference from the reference, and what it adds
// each step, within double's normal range; below it the extended range takes over.
inline constexpr int kDoubleDeltaExponent = -990;
DeltaFormat delta_format(const View& view, int width);

// `cc`: the GPU's, or none on the CPU path. `current`: what renders now; a deeper choice stays
// until the shallower would hold at half the span, so that a view on the edge does not switch back
// and forth. A pinned variant is the user's own whatever the view. Past double the choice is a
// perturbation variant (perturb, perturb-x, perturb-f), as is any view where the user's own is one.
// `named_span`: the span `why` names, where the user's view is part of `view` (the window's area
// beside its panel); the view's own by default.
PrecisionChoice choose_precision(const View& view, int width, int height, VariantId current,
                                 VariantId own, bool pinned, std::optional<ComputeCapability> cc,
                                 std::optional<FloatExp> named_span = std::nullopt);

// "perturbation (double)", "perturbation (extended range)": for banners, stderr and files.
const char* perturbation_name(DeltaFormat f);

// Whether the GPU's FP64 pipe has under a quarter of its FMA pipe's lanes (the GeForce chips,
// 1/32 or 1/64): there perturbation iterates in float (perturb-f). False on the CPU path.
bool slow_fp64(std::optional<ComputeCapability> cc);

}  // namespace mp
