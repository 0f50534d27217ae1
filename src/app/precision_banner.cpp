#include "app/precision_banner.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "model/precision_choice.h"
#include "model/variant_table.h"

namespace mp {

std::vector<BannerLine> precision_banner_lines(const View& view, const PrecisionChoice& choice,
                                               int fb_width, int fb_height) {
  const VariantInfo& vi = variant_info(choice.variant);
  const bool fp64 = vi.fp64, df64 = vi.mantissa_bits == 48;
  PrecisionStatus p =
      float_precision(view, std::max(fb_width, 1), std::max(fb_height, 1), vi.mantissa_bits);
  // Perturbation's limit is its differences' exponent range, which the choice says; a plain
  // variant's limit does not apply.
  if (choice.perturbation) p.exhausted = choice.exhausted;
  std::vector<BannerLine> lines;
  if (choice.deeper)
    lines.push_back({Tone::Info, choice.why + "; pin (K) to keep " +
                                     std::string(variant_info(choice.own).name) + "."});
  if (!p.exhausted) return lines;
  const std::string spacing = span_text(quotient(view.span, to_floatexp(std::max(fb_width, 1))), 3);
  char text[512];
  if (choice.perturbation) {
    std::snprintf(text, sizeof text,
                  "%s's differences leave double's exponent range: pixel spacing %s is under "
                  "2^%d, and they underflow. perturb-x goes on at any depth: unpin (K) to switch "
                  "as you zoom.",
                  vi.name.data(), spacing.c_str(), kDoubleDeltaExponent);
  } else {
    // Short of fp64 only where the user pinned the variant: a move would have gone deeper.
    const char* deeper = " perturbation goes on at any depth: unpin (K) to switch as you zoom.";
    if (!fp64)
      deeper = df64 ? " fp64 and perturbation go deeper: unpin (K) to switch as you zoom."
                    : " df64, fp64 and perturbation go deeper: unpin (K) to switch as you zoom.";
    std::snprintf(text, sizeof text,
                  "%s precision exhausted: pixel spacing %s is under 4 ulps (%.3g) at these "
                  "coordinates; neighbouring pixels merge.%s",
                  fp64   ? "Double"
                  : df64 ? "Double-float"
                         : "Float",
                  spacing.c_str(), p.float_ulp, deeper);
  }
  lines.push_back({Tone::Warning, text});
  return lines;
}

}  // namespace mp
