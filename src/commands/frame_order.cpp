#include "commands/frame_order.h"

#include <cstddef>

namespace mp {

std::vector<int> render_order(const std::vector<int>& frames, bool needs_reference) {
  if (needs_reference || frames.size() < 3) return frames;
  std::vector<int> order;
  order.reserve(frames.size());
  std::size_t lo = 0, hi = frames.size();
  while (lo < hi) {
    order.push_back(frames[lo++]);
    if (lo < hi) order.push_back(frames[--hi]);
  }
  return order;
}

}  // namespace mp
