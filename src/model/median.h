// The median of a sample, used wherever repeated measurements are reduced to one figure.
#pragma once

#include <algorithm>
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

}  // namespace mp
