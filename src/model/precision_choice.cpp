#include "model/precision_choice.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "model/bound_model.h"
#include "model/pipe_rates.h"
#include "model/variant_table.h"

namespace mp {
namespace {

bool holds(VariantId v, const View& view, int width, int height) {
  return !float_precision(view, width, height, variant_info(v).mantissa_bits).exhausted;
}

// Where the automatic choice keeps a variant: float's while its pixels are apart (its variants
// are the pipes' demonstration, whose counts float rounds anyway); double's and double-float's
// while a pixel spans kAccurateUlps of their ulps, so that the rounding of c and of each step,
// which moves a pixel's orbit as a move of c by about an ulp or two would (docs/architecture.md),
// stays near a thousandth of a pixel. At 4 ulps long orbits came out wrong in most pixels.
constexpr double kAccurateUlps = 2048;
bool fits(VariantId v, const View& view, int width, int height) {
  const int bits = variant_info(v).mantissa_bits;
  const PrecisionStatus p = float_precision(view, width, height, bits);
  if (bits <= 24) return !p.exhausted;
  return !p.exhausted && p.pixel_spacing >= kAccurateUlps * p.float_ulp;
}

const char* arithmetic(VariantId v) {
  const int bits = variant_info(v).mantissa_bits;
  return bits >= 53 ? "double" : bits > 24 ? "double-float" : "float";
}

// Model cycles per warp-step on one SM: the bound of the variant's loop on that chip.
double cost(VariantId v, ComputeCapability cc) {
  const int arch = cc.major * 10 + cc.minor;
  return compute_bound(pipe_rates(cc.major, cc.minor), 1, variant_info(v).per_iteration(arch), 1)
      .max_cycles;
}

std::string name(VariantId v) {
  return std::string(variant_info(v).name);
}

}  // namespace

const char* perturbation_name(DeltaFormat f) {
  switch (f) {
    case DeltaFormat::Double: return "perturbation (double)";
    case DeltaFormat::Extended: return "perturbation (extended range)";
    case DeltaFormat::Float: return "perturbation (float, extended range)";
  }
  return "";
}

bool slow_fp64(std::optional<ComputeCapability> cc) {
  if (!cc) return false;
  const PipeRates r = pipe_rates(cc->major, cc->minor);
  return r[Pipe::Fp64] * 4 < r[Pipe::Fma];
}

DeltaFormat delta_format(const View& view, int width) {
  const FloatExp spacing = quotient(view.span, to_floatexp(static_cast<double>(width)));
  return spacing.e >= kDoubleDeltaExponent ? DeltaFormat::Double : DeltaFormat::Extended;
}

// The perturbation variant for differences in `f`.
VariantId perturbation_variant(DeltaFormat f) {
  switch (f) {
    case DeltaFormat::Double: return VariantId::PerturbDouble;
    case DeltaFormat::Extended: return VariantId::PerturbExtended;
    case DeltaFormat::Float: return VariantId::PerturbFloat;
  }
  return VariantId::PerturbExtended;
}

PrecisionChoice choose_precision(const View& view, int width, int height, VariantId current,
                                 VariantId own, bool pinned, std::optional<ComputeCapability> cc,
                                 std::optional<FloatExp> named_span) {
  const FloatExp said = named_span.value_or(view.span);
  PrecisionChoice c;
  c.variant = own;
  c.own = own;
  char why[320];
  if (const std::optional<DeltaFormat> f = variant_info(own).perturbation) {
    // A perturbation variant renders a view of any depth; differences in double hold while the
    // pixel spacing stays within double's range, those with an exponent of their own anywhere.
    c.perturbation = f;
    const bool own_holds = *f != DeltaFormat::Double || delta_format(view, width) == *f;
    if (own_holds || pinned) {
      c.exhausted = !own_holds;
      return c;
    }
    // The user chose double's 53 bits: their extended-range twin, even where FP64 is slow.
    c.variant = VariantId::PerturbExtended;
    c.perturbation = DeltaFormat::Extended;
    c.deeper = true;
    std::snprintf(why, sizeof why,
                  "%s's differences leave double's exponent range at span %s: rendering with %s "
                  "(an exponent of their own)",
                  name(own).c_str(), span_text(said, 2).c_str(), name(c.variant).c_str());
    c.why = why;
    return c;
  }
  const bool current_perturbed = variant_info(current).perturbation.has_value();
  const bool own_holds = holds(own, view, width, height);
  View half = view;
  half.span = scaled(half.span, -1);
  const int own_bits = variant_info(own).mantissa_bits;
  const bool was_deeper =
      current_perturbed || (current != own && variant_info(current).mantissa_bits > own_bits);
  if (pinned ||
      (fits(own, view, width, height) && (!was_deeper || fits(own, half, width, height)))) {
    c.exhausted = !own_holds;
    return c;
  }
  // The deeper variants, the faster first: by the bound model on the GPU; on the CPU double is
  // exact in hardware where df64 spends a dozen float operations for each of its own.
  std::vector<VariantId> deeper;
  for (VariantId v : {VariantId::Fp64, VariantId::Df64Step})
    if (variant_info(v).mantissa_bits > own_bits) deeper.push_back(v);
  if (cc)
    std::stable_sort(deeper.begin(), deeper.end(),
                     [&](VariantId a, VariantId b) { return cost(a, *cc) < cost(b, *cc); });
  // Leaving perturbation for a plain variant takes the same margin as leaving a deeper variant
  // for the user's own.
  const auto fit = std::find_if(deeper.begin(), deeper.end(), [&](VariantId v) {
    return fits(v, view, width, height) && (!current_perturbed || fits(v, half, width, height));
  });
  const char* edge = !own_holds       ? "cannot separate pixels"
                     : own_bits <= 24 ? "is at its limit"
                                      : "rounds by over a thousandth of a pixel";
  if (fit == deeper.end()) {
    // Past double, every pixel as its difference from one orbit computed in as many bits as the
    // depth needs; in float where the GPU's FP64 is too slow for double's 53 bits to pay.
    const DeltaFormat f = slow_fp64(cc) ? DeltaFormat::Float : delta_format(view, width);
    c.perturbation = f;
    c.variant = perturbation_variant(f);
    // Past float, double too: said, since the sentence names the user's own arithmetic.
    const char* double_too = own_bits >= 53 ? ""
                             : holds(VariantId::Fp64, view, width, height)
                                 ? " (and double rounds by over a thousandth of a pixel)"
                                 : " (and double cannot either)";
    std::snprintf(why, sizeof why,
                  "%s %s at span %s%s: rendering with %s, %s from an MPFR reference orbit (a "
                  "pixel needs %d bits here%s)",
                  arithmetic(own), edge, span_text(said, 2).c_str(), double_too,
                  name(c.variant).c_str(), perturbation_name(f), view_bits(view, width),
                  f == DeltaFormat::Float      ? ", FP64 under a quarter of FP32's rate here"
                  : f == DeltaFormat::Extended ? ", past double's exponent range"
                                               : "");
  } else {
    c.variant = *fit;
    std::string reason;
    if (fit != deeper.begin())
      reason = name(deeper.front()) + " runs out here too";
    else if (deeper.size() == 1)
      reason = "the one deeper";
    else if (cc)
      reason = "faster than " + name(deeper[1]) + " on sm_" + std::to_string(cc->major) +
               std::to_string(cc->minor);
    else
      reason = "on the CPU double is native and cheaper than " + name(deeper[1]);
    std::snprintf(why, sizeof why, "%s %s at span %s: rendering with %s (%s)", arithmetic(own),
                  edge, span_text(said, 2).c_str(), name(c.variant).c_str(), reason.c_str());
  }
  c.deeper = true;
  c.why = why;
  return c;
}

}  // namespace mp
