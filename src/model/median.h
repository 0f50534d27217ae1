// The median of a sample, used wherever repeated measurements are reduced to one figure.
#pragma once

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <type_traits>
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

// Every timed run of a measurement, in order, and which of them is the median.
template <class T>
struct TimedRuns {
  std::vector<T> runs;
  std::size_t median = 0;
  const T& middle() const { return runs[median]; }
};

// Warm-up-then-median, the way every measurement here is taken: `warmup` untimed runs (clocks
// ramp, caches fill), then `runs` timed ones; run(timed) makes one and returns its result.
// The median is the lower middle by `key`, earlier runs first among equals, so that all the
// figures of that one run stay together. Throws std::invalid_argument where runs < 1.
template <class Run, class Key>
auto warm_median(int warmup, int runs, Run&& run, Key&& key) {
  using T = std::decay_t<decltype(run(true))>;
  if (runs < 1) throw std::invalid_argument("a median needs at least one timed run");
  for (int i = 0; i < warmup; ++i) run(false);
  TimedRuns<T> r;
  r.runs.reserve(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) r.runs.push_back(run(true));
  std::vector<std::size_t> order(r.runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return key(r.runs[a]) < key(r.runs[b]); });
  r.median = order[(order.size() - 1) / 2];
  return r;
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
