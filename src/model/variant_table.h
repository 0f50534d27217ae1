// Host-side view of the variant list in cuda/variants.h: names, summaries, declared mixes.
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
  std::string_view type_name;  // the struct in cuda/variants.h, as in mangled kernel names
  std::string_view name;
  std::string_view summary;
  InstrMix step;  // the step alone
  // Escape test and loop bookkeeping, and the whole iteration, on sm_XY (sm = 10 x cc).
  InstrMix overhead(int sm) const { return variants::loop_overhead(sm); }
  InstrMix per_iteration(int sm) const { return step + overhead(sm); }
};

const std::vector<VariantInfo>& all_variants();
const VariantInfo& variant_info(VariantId id);
std::optional<VariantId> find_variant(std::string_view name);
// "fma5, fma4, fma4-sin": for help texts and error messages.
std::string variant_names();

}  // namespace mp
