#include "counters/attribution.h"

#include <algorithm>

namespace mp::counters {
namespace {

double overlap(const PmSample& s, const LaunchSpan& l) {
  const std::uint64_t a = std::max(s.start, l.start), b = std::min(s.end, l.end);
  return b > a ? static_cast<double>(b - a) : 0.0;
}

}  // namespace

std::vector<CounterFigures> attribute(const std::vector<PmSample>& samples,
                                      const std::vector<LaunchSpan>& launches,
                                      const MetricChoice& choice) {
  std::vector<CounterFigures> out(launches.size());
  struct Sums {
    std::vector<double> weighted;  // per metric: value x ns x share
    double clock_weight = 0;       // ns x share, for the clock's mean
    double covered = 0;            // ns of the launch's span that samples cover
    int configuration = -1;
  };
  std::vector<Sums> sums(launches.size());
  for (const PmSample& s : samples) {
    if (s.end <= s.start || s.configuration < 0 ||
        s.configuration >= static_cast<int>(choice.configurations.size()))
      continue;
    double total = 0;
    for (const LaunchSpan& l : launches) total += overlap(s, l);
    if (total <= 0) continue;
    const double ns = static_cast<double>(s.end - s.start);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const double o = overlap(s, launches[i]);
      if (o <= 0) continue;
      Sums& z = sums[i];
      if (z.configuration < 0) z.configuration = s.configuration;
      if (z.configuration != s.configuration) continue;
      const double share = o / total;
      // Rates and percentages weigh by the time they held; a count is the sample's own.
      const std::vector<ChosenMetric>& set = choice.configurations[s.configuration];
      z.weighted.resize(s.values.size());
      for (std::size_t m = 0; m < s.values.size() && m < set.size(); ++m)
        z.weighted[m] += s.values[m] * share * (set[m].kind == MetricKind::Count ? 1.0 : ns);
      z.clock_weight += ns * share;
      z.covered += o;
      ++out[i].samples;
    }
  }
  for (std::size_t i = 0; i < launches.size(); ++i) {
    CounterFigures& f = out[i];
    const LaunchSpan& l = launches[i];
    f.span_ms = (l.end - l.start) / 1e6;
    const Sums& z = sums[i];
    if (z.configuration < 0) {
      f.unavailable = "no PM sample overlapped this launch";
      f.samples = 0;
      continue;
    }
    f.configuration = z.configuration;
    // Samples tile time; where they do not tile the launch, some were lost (dropped at a start
    // or a switch, or overwritten before they were read), and the figures would be too low.
    const double span_ns = static_cast<double>(l.end - l.start);
    if (z.covered < kMinCoverage * span_ns) {
      f.unavailable = "PM samples cover only " +
                      std::to_string(static_cast<int>(100 * z.covered / span_ns)) +
                      "% of this launch (lost or not yet read)";
      f.pipes.clear();
      continue;
    }
    const std::vector<ChosenMetric>& set = choice.configurations[z.configuration];
    for (std::size_t m = 0; m < set.size() && m < z.weighted.size(); ++m)
      if (set[m].pipe == "clock") f.clock_ghz = z.weighted[m] / z.clock_weight / 1e9;
    // Busy time (ns) over the launch's SM cycles at the counters' clock, or over its span.
    const double denominator_ns =
        l.sm_cycles > 0 && f.clock_ghz > 0 ? l.sm_cycles / f.clock_ghz : (l.end - l.start);
    for (std::size_t m = 0; m < set.size() && m < z.weighted.size(); ++m) {
      const ChosenMetric& c = set[m];
      if (c.kind == MetricKind::PctOfPeak)
        f.pipes.push_back({c.pipe, denominator_ns > 0 ? z.weighted[m] / denominator_ns : 0});
      else if (c.kind == MetricKind::Count)
        f.warp_instructions = z.weighted[m];
    }
    if (choice.fma_from_halves && !f.find("FMA")) {
      const CounterPipe *h = f.find("fmaheavy"), *lt = f.find("fmalite");
      if (h && lt) f.pipes.push_back({"FMA", (h->pct + lt->pct) / 2});
    }
  }
  return out;
}

}  // namespace mp::counters
