#include "variant_table.h"

#include <type_traits>

namespace mp {
namespace {

template <class R>
constexpr int mantissa_bits() {
  return std::is_same_v<R, double> ? 53 : std::is_same_v<R, Df64> ? 48 : 24;
}

template <class V>
constexpr std::optional<DeltaFormat> perturbation_of() {
  if constexpr (V::kPerturbation)
    return V::kFormat;
  else
    return std::nullopt;
}

}  // namespace

const std::vector<VariantInfo>& all_variants() {
  static const std::vector<VariantInfo> table = {
#define MP_VARIANT_INFO(V)                               \
  VariantInfo{VariantId::V,                              \
              #V,                                        \
              variants::V::kName,                        \
              variants::V::kSummary,                     \
              variants::loop_steps<variants::V>(),       \
              std::is_same_v<variants::V::Real, double>, \
              mantissa_bits<variants::V::Real>(),        \
              variants::V::kShape,                       \
              variants::V::kCycles,                      \
              perturbation_of<variants::V>(),            \
              &variants::V::step_mix,                    \
              variants::V::kLoop},
      MANDELPIPE_VARIANTS(MP_VARIANT_INFO)
#undef MP_VARIANT_INFO
  };
  return table;
}

const VariantInfo& variant_info(VariantId id) {
  return all_variants().at(static_cast<int>(id));
}

std::optional<VariantId> find_variant(std::string_view name) {
  for (const VariantInfo& v : all_variants())
    if (v.name == name) return v.id;
  return std::nullopt;
}

std::string variant_names() {
  std::string s;
  for (const VariantInfo& v : all_variants()) {
    if (!s.empty()) s += ", ";
    s += v.name;
  }
  return s;
}

}  // namespace mp
