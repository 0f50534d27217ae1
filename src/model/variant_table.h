// Host-side view of the variant list in cuda/host_device/variants.h: names, summaries, declared
// mixes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instr_mix.h"
#include "variants.h"

namespace mp {

struct VariantInfo {
  VariantId id;
  std::string_view
      type_name;  // the struct in cuda/host_device/variants.h, as in mangled kernel names
  std::string_view name;
  std::string_view summary;
  // Steps per trip of the step loop: > 1 where the escape test runs once per block of steps
  // (once per that many, or twice for variants that run two blocks a trip).
  int steps_per_check;
  bool fp64;              // double-precision arithmetic and coordinates
  int mantissa_bits;      // of its arithmetic: 24 (float), 48 (double-float), 53 (double)
  variants::Shape shape;  // where its warps get their pixels
  bool stops_cycles;      // runs fewer steps than it counts where an orbit repeats (kCycles)
  // Set for the perturbation variants: the format of a pixel's difference from the reference.
  std::optional<DeltaFormat> perturbation;
  // On `arch` (10 x compute capability, sm_90: 90): the step alone; the whole loop body
  // (steps_per_check steps and one escape test); per step, the loop body's share, and what it adds
  // to the step.
  InstrMix (*step)(int arch);
  variants::LoopMixes loop;
  InstrMix per_iteration(int arch) const { return loop.at(arch) * (1.0 / steps_per_check); }
  InstrMix overhead(int arch) const { return per_iteration(arch) + step(arch) * -1.0; }
};

const std::vector<VariantInfo>& all_variants();
const VariantInfo& variant_info(VariantId id);
std::optional<VariantId> find_variant(std::string_view name);
// "fma5, fma4, fma4-sin": for help texts and error messages.
std::string variant_names();

}  // namespace mp
