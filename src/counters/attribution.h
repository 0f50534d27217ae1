// Attributing PM samples to launches by time. The counters are device-wide and sample on a
// clock of their own; a launch is known by its kernels' start and end in the same time base
// (CUPTI's), so each sample's work goes to the launches it overlaps. Pure arithmetic: tested
// on synthetic sample streams.
#pragma once

#include <cstddef>
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

// Launches less than `gap_ns` (one sampling interval) apart can share a sample, whose work no
// rule can divide between them by its content: each group of such neighbours (index lists into
// `launches`, each in start order, groups in start order) is attributed as one.
std::vector<std::vector<std::size_t>> neighbour_groups(const std::vector<LaunchSpan>& launches,
                                                       std::uint64_t gap_ns);

// Each sample's work (value x duration) goes to the groups of neighbours it overlaps: whole to a
// group it alone overlaps, exact where the GPU ran nothing else there (bench and the
// experiments idle it around each launch; in the window an edge sample may hold some of the
// palette draw); shared by overlap where it straddles two groups (a sample longer than the gap).
// A group's work goes to its launches by their spans, so back-to-back frames of one view get
// their true share whatever the work's profile within each; a group with a launch that samples
// do not cover gets no figures. A launch's span is all its kernels (the tile ordering's too),
// its denominator its measured SM cycles, which span both. A launch's figures: each pipe's busy
// time over its measured SM cycles. Samples of another configuration than the group's first
// overlapping one are left out.
std::vector<CounterFigures> attribute(const std::vector<PmSample>& samples,
                                      const std::vector<LaunchSpan>& launches,
                                      const MetricChoice& choice, std::uint64_t gap_ns);

// Which of the ended `launches` may be given their figures now: those whose group of neighbours
// can change no more. Every sample over the group is read (`read_until`: the end of the last
// sample decoded), and no launch can join it: `now` and the begin time of every launch not
// among them (`others`: running, or whose kernels' times have not come yet) are `gap_ns` or
// more past the group's end.
std::vector<bool> settled_launches(const std::vector<LaunchSpan>& launches, std::uint64_t gap_ns,
                                   std::uint64_t read_until, std::uint64_t now,
                                   const std::vector<std::uint64_t>& others);

}  // namespace mp::counters
