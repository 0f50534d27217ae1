// The median of a sample, used wherever repeated measurements are reduced to one figure.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace mp {

// The middle element by `key` (the lower middle for an even count); `v` must not be empty.
template <class T, class Key>
T median_by(std::vector<T> v, Key key) {
  std::sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
  return v[(v.size() - 1) / 2];
}

inline double median(std::vector<double> v) {
  return median_by(std::move(v), [](double x) { return x; });
}

// A with/without difference from blocks of samples taken in turns: even blocks without, odd
// blocks with. Each odd block with samples on both sides gives its median minus the mean of
// its neighbours' medians, so drift that is linear over three blocks cancels (pooled halves
// only cancel it on average); the estimate is the median of those differences, nullopt where
// no block has both neighbours.
inline std::optional<double> alternating_blocks_difference(
    const std::vector<std::vector<double>>& blocks) {
  std::vector<double> d;
  for (std::size_t b = 1; b + 1 < blocks.size(); b += 2)
    if (!blocks[b - 1].empty() && !blocks[b].empty() && !blocks[b + 1].empty())
      d.push_back(median(blocks[b]) - (median(blocks[b - 1]) + median(blocks[b + 1])) / 2);
  if (d.empty()) return std::nullopt;
  return median(std::move(d));
}

}  // namespace mp
