#include "counters/sampling_policy.h"

namespace mp::counters {

Renewal renewal(const ImageFill& fill, bool launch_under_way) {
  if (fill.populated == 0 || (!fill.full && fill.completed < fill.total / 2)) return Renewal::Keep;
  if (fill.populated == fill.completed) return Renewal::AtBoundary;
  return launch_under_way && !fill.full ? Renewal::Keep : Renewal::Cut;
}

}  // namespace mp::counters
