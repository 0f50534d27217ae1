#include "counters/attribution.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace mp::counters {
namespace {

double overlap(const PmSample& s, const LaunchSpan& l) {
  const std::uint64_t a = std::max(s.start, l.start), b = std::min(s.end, l.end);
  return b > a ? static_cast<double>(b - a) : 0.0;
}

std::string coverage_line(double covered, double span_ns, bool own) {
  return "PM samples cover only " + std::to_string(static_cast<int>(100 * covered / span_ns)) +
         (own ? "% of this launch" : "% of a launch within one sampling interval of this one") +
         " (lost or not yet read)";
}

}  // namespace

std::vector<std::vector<std::size_t>> neighbour_groups(const std::vector<LaunchSpan>& launches,
                                                       std::uint64_t gap_ns) {
  std::vector<std::size_t> order(launches.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return launches[a].start < launches[b].start; });
  std::vector<std::vector<std::size_t>> groups;
  std::uint64_t group_end = 0;
  for (std::size_t i : order) {
    const LaunchSpan& l = launches[i];
    if (groups.empty() || l.start >= group_end + gap_ns) groups.emplace_back();
    groups.back().push_back(i);
    group_end = groups.back().size() == 1 ? l.end : std::max(group_end, l.end);
  }
  return groups;
}

std::vector<CounterFigures> attribute(const std::vector<PmSample>& samples,
                                      const std::vector<LaunchSpan>& launches,
                                      const MetricChoice& choice, std::uint64_t gap_ns) {
  std::vector<CounterFigures> out(launches.size());
  const std::vector<std::vector<std::size_t>> groups = neighbour_groups(launches, gap_ns);
  struct Sums {
    std::vector<double> weighted;  // per metric: value x ns x share
    double clock_weight = 0;       // ns x share, for the clock's mean
    int configuration = -1;
  };
  std::vector<Sums> sums(groups.size());
  std::vector<double> covered(launches.size(), 0.0);  // ns of each launch's span samples cover
  std::vector<double> group_overlap(groups.size());
  for (const PmSample& s : samples) {
    if (s.end <= s.start || s.configuration < 0 ||
        s.configuration >= static_cast<int>(choice.configurations.size()))
      continue;
    double total = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      group_overlap[g] = 0;
      for (std::size_t i : groups[g]) group_overlap[g] += overlap(s, launches[i]);
      total += group_overlap[g];
    }
    if (total <= 0) continue;
    const double ns = static_cast<double>(s.end - s.start);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (group_overlap[g] <= 0) continue;
      Sums& z = sums[g];
      if (z.configuration < 0) z.configuration = s.configuration;
      if (z.configuration != s.configuration) continue;
      const double share = group_overlap[g] / total;
      // Rates and percentages weigh by the time they held; a count is the sample's own.
      const std::vector<ChosenMetric>& set = choice.configurations[s.configuration];
      z.weighted.resize(s.values.size());
      for (std::size_t m = 0; m < s.values.size() && m < set.size(); ++m)
        z.weighted[m] += s.values[m] * share * (set[m].kind == MetricKind::Count ? 1.0 : ns);
      z.clock_weight += ns * share;
      for (std::size_t i : groups[g]) {
        const double o = overlap(s, launches[i]);
        if (o <= 0) continue;
        covered[i] += o;
        ++out[i].samples;
      }
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Sums& z = sums[g];
    double group_span = 0;
    std::string short_of;  // the first member whose span the samples do not tile
    for (std::size_t i : groups[g]) {
      const LaunchSpan& l = launches[i];
      const double span_ns = static_cast<double>(l.end - l.start);
      out[i].span_ms = span_ns / 1e6;
      group_span += span_ns;
      // Samples tile time; where they do not tile a launch, some were lost (dropped at a start
      // or a switch, or overwritten before they were read), and the figures would be too low.
      if (short_of.empty() && covered[i] < kMinCoverage * span_ns)
        short_of = coverage_line(covered[i], span_ns, false);
    }
    for (std::size_t i : groups[g]) {
      CounterFigures& f = out[i];
      const LaunchSpan& l = launches[i];
      if (z.configuration < 0) {
        f.unavailable = "no PM sample overlapped this launch";
        f.samples = 0;
        continue;
      }
      f.configuration = z.configuration;
      const double span_ns = static_cast<double>(l.end - l.start);
      if (!short_of.empty()) {
        f.unavailable = covered[i] < kMinCoverage * span_ns
                            ? coverage_line(covered[i], span_ns, true)
                            : short_of;
        continue;
      }
      const std::vector<ChosenMetric>& set = choice.configurations[z.configuration];
      for (std::size_t m = 0; m < set.size() && m < z.weighted.size(); ++m)
        if (set[m].pipe == "clock") f.clock_ghz = z.weighted[m] / z.clock_weight / 1e9;
      // This launch's part of its group's work, by its share of the group's time.
      const double part = group_span > 0 ? span_ns / group_span : 1.0 / groups[g].size();
      // Busy time (ns) over the launch's SM cycles at the counters' clock, or over its span.
      const double denominator_ns =
          l.sm_cycles > 0 && f.clock_ghz > 0 ? l.sm_cycles / f.clock_ghz : span_ns;
      for (std::size_t m = 0; m < set.size() && m < z.weighted.size(); ++m) {
        const ChosenMetric& c = set[m];
        if (c.kind == MetricKind::PctOfPeak)
          f.pipes.push_back(
              {c.pipe, denominator_ns > 0 ? z.weighted[m] * part / denominator_ns : 0});
        else if (c.kind == MetricKind::Count)
          f.warp_instructions = z.weighted[m] * part;
      }
      if (choice.fma_from_halves && !f.find("FMA")) {
        const CounterPipe *h = f.find("fmaheavy"), *lt = f.find("fmalite");
        if (h && lt) f.pipes.push_back({"FMA", (h->pct + lt->pct) / 2});
      }
    }
  }
  return out;
}

std::vector<bool> settled_launches(const std::vector<LaunchSpan>& launches, std::uint64_t gap_ns,
                                   std::uint64_t read_until, std::uint64_t now,
                                   const std::vector<std::uint64_t>& others) {
  std::vector<bool> settled(launches.size(), false);
  for (const std::vector<std::size_t>& group : neighbour_groups(launches, gap_ns)) {
    std::uint64_t end = 0;
    for (std::size_t i : group) end = std::max(end, launches[i].end);
    const bool joinable =
        now < end + gap_ns || std::any_of(others.begin(), others.end(),
                                          [&](std::uint64_t t0) { return t0 < end + gap_ns; });
    if (read_until < end || joinable) continue;
    for (std::size_t i : group) settled[i] = true;
  }
  return settled;
}

}  // namespace mp::counters
