// Attributing PM samples to launches by time. The counters are device-wide and sample on a
// clock of their own; a launch is known by its kernels' start and end in the same time base
// (CUPTI's), so each sample's work goes to the launches it overlaps. Pure arithmetic: tested
// on synthetic sample streams.
#pragma once

#include <cstdint>
#include <vector>

#include "counters/metric_choice.h"
#include "model/counter_figures.h"

namespace mp::counters {

struct PmSample {
  std::uint64_t start = 0, end = 0;  // ns, CUPTI's time base
  std::vector<double> values;        // one per metric of the configuration it was taken with
  int configuration = 0;
};

struct LaunchSpan {
  std::uint64_t id = 0;
  std::uint64_t start = 0, end = 0;  // the launch's kernels, first start to last end
  double sm_cycles = 0;              // its measured SM cycles (0: unknown, use the span)
};

// Below this share of a launch's span covered by samples, its figures are withheld.
inline constexpr double kMinCoverage = 0.98;

// Each sample's work (value x duration) goes to the launches it overlaps: whole to a launch it
// alone overlaps, exact where the GPU ran nothing else there (bench and the experiments idle it
// around each launch; in the window an edge sample may hold some of the palette draw); shared
// by overlap where it straddles two of the launches given. A launch's span is all its kernels
// (the tile ordering's too), its denominator the frame's measured SM cycles, which span both. A
// launch's figures: each pipe's busy time over its measured SM cycles. Samples of another
// configuration than the launch's first overlapping one are left out.
std::vector<CounterFigures> attribute(const std::vector<PmSample>& samples,
                                      const std::vector<LaunchSpan>& launches,
                                      const MetricChoice& choice);

}  // namespace mp::counters
