// The measuring kit's host side without a GPU: the per-SM spans reduced to one reading, the
// warm-up-then-median policy, and the counter sources' columns as the reports iterate them.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "csv_fields.h"
#include "io/counter_columns.h"
#include "io/experiment_report.h"
#include "io/report.h"
#include "model/median.h"
#include "sm_spans.h"

namespace mp {
namespace {

using test::csv_fields;

// A buffer of `layout` as read back, first at ~0 and the rest at 0, as the kit clears it.
std::vector<unsigned long long> cleared(const SpanLayout& layout) {
  std::vector<unsigned long long> v(layout.per_sm_words(), 0);
  std::fill(v.begin(), v.begin() + kSmSlots, ~0ull);
  return v;
}

TEST(SmSpans, LayoutPlacesTheArraysInOrder) {
  const SpanLayout lab{true, 0, 0};
  EXPECT_EQ(lab.words(), 3u * kSmSlots);
  unsigned long long* base = nullptr;
  std::vector<unsigned long long> buffer(SpanLayout{false, 2, 64}.words());
  base = buffer.data();
  const SmSpan s = span_of(SpanLayout{false, 2, 64}, base);
  EXPECT_EQ(s.first, base);
  EXPECT_EQ(s.last, base + kSmSlots);
  EXPECT_EQ(s.blocks, nullptr);
  EXPECT_EQ(s.extra, base + 2 * kSmSlots);
  EXPECT_EQ(s.scratch, base + 4 * kSmSlots);
  EXPECT_EQ(span_of(lab, base).blocks, base + 2 * kSmSlots);
  EXPECT_EQ(span_of(lab, base).extra, nullptr);
  EXPECT_EQ(span_of(lab, base).scratch, nullptr);
}

// SMs 0 and 700 ran blocks (700's %smid beyond any SM count), SM 3 only started work (the
// tile ordering lowers `first` alone): it is not counted.
TEST(SmSpans, ReduceTakesTheSmsThatEndedWork) {
  const SpanLayout layout{true, 1, 0};
  std::vector<unsigned long long> h = cleared(layout);
  const auto at = [&](int array, int sm) -> unsigned long long& {
    return h[static_cast<std::size_t>(array) * kSmSlots + sm];
  };
  at(0, 0) = 1000, at(1, 0) = 5000, at(2, 0) = 2, at(3, 0) = 7;
  at(0, 700) = 2000, at(1, 700) = 4000, at(2, 700) = 3, at(3, 700) = 5;
  at(0, 3) = 10;
  const SpanReading r = reduce_spans(layout, h.data(), 2.0);
  EXPECT_EQ(r.sms_used, 2);
  EXPECT_EQ(r.sm_cycles, 4000u);
  EXPECT_DOUBLE_EQ(r.sm_cycles_mean, 3000.0);
  EXPECT_EQ(r.max_blocks_per_sm, 3u);
  ASSERT_EQ(r.extras.size(), 1u);
  EXPECT_EQ(r.extras[0], 12u);
  EXPECT_DOUBLE_EQ(r.ms, 2.0);
  EXPECT_DOUBLE_EQ(r.clock_ghz(), 4000 / 2e6);
}

// The renderer's layout: no block count, two extras (pixel and warp iterations) summed apart.
TEST(SmSpans, ExtrasWithoutBlocksAreSummedApart) {
  const SpanLayout layout{false, 2, 64};
  std::vector<unsigned long long> h = cleared(layout);
  for (int sm = 0; sm < 4; ++sm) {
    h[sm] = 100;
    h[kSmSlots + sm] = 100 + 10 * (sm + 1);
    h[2 * kSmSlots + sm] = 1;
    h[3 * kSmSlots + sm] = 1000;
  }
  const SpanReading r = reduce_spans(layout, h.data(), 1.0);
  EXPECT_EQ(r.sms_used, 4);
  EXPECT_EQ(r.sm_cycles, 40u);
  EXPECT_DOUBLE_EQ(r.sm_cycles_mean, 25.0);
  EXPECT_EQ(r.max_blocks_per_sm, 0u);
  EXPECT_EQ(r.extras, (std::vector<unsigned long long>{4, 4000}));
}

TEST(SmSpans, NothingRanNothingCounted) {
  const SpanLayout layout{true, 0, 0};
  const std::vector<unsigned long long> h = cleared(layout);
  const SpanReading r = reduce_spans(layout, h.data(), 0.0);
  EXPECT_EQ(r.sms_used, 0);
  EXPECT_EQ(r.sm_cycles, 0u);
  EXPECT_EQ(r.sm_cycles_mean, 0.0);
  EXPECT_EQ(r.clock_ghz(), 0.0);
}

TEST(WarmMedian, WarmUpsAreRunButNotKept) {
  std::vector<bool> calls;
  int n = 0;
  const TimedRuns<int> r = warm_median(
      2, 3,
      [&](bool timed) {
        calls.push_back(timed);
        return n++;
      },
      [](int v) { return -v; });
  EXPECT_EQ(calls, (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ(r.runs, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(r.median, 1u);
  EXPECT_EQ(r.middle(), 3);
}

// The lower middle of an even count, and among equal keys the earlier run: the one run whose
// figures are kept together.
TEST(WarmMedian, LowerMiddleEarlierFirst) {
  const std::vector<std::pair<double, int>> runs = {{5, 0}, {1, 1}, {3, 2}, {3, 3}, {9, 4}, {2, 5}};
  std::size_t i = 0;
  const auto r = warm_median(
      0, 6, [&](bool) { return runs[i++]; }, [](const auto& p) { return p.first; });
  EXPECT_EQ(r.middle().second, 2);
  std::size_t j = 0;
  const std::vector<double> four = {4, 1, 3, 2};
  EXPECT_EQ(warm_median(
                1, 3, [&](bool) { return four[j++]; }, [](double v) { return v; })
                .middle(),
            2.0);
}

TEST(WarmMedian, NoTimedRunIsRefused) {
  EXPECT_THROW(warm_median(
                   1, 0, [](bool) { return 1.0; }, [](double v) { return v; }),
               std::invalid_argument);
}

// A source the reports do not know by name, read beside the hardware counters: its columns follow
// theirs in every format, with blanks in rows that did not read it.
SourceColumns power(std::optional<double> watts, const std::string& note = "") {
  return {"fake power", "pw_", "Power (a fake source).", {{"watts", "power W", "W", watts}},
          true,         note};
}

BenchReport bench_with_power() {
  BenchReport rep;
  rep.device = {"Test GPU", 9, 0, 132, "issue 1/clk/SMSP", "declared"};
  for (const char* variant : {"fma5", "fma4", "fp64"}) {
    MeasuredRow r;
    r.view_name = "A";
    r.variant = variant;
    r.measured = {0.5, 1e6, 2e7, 1e6, 9e5};
    rep.rows.push_back(r);
  }
  // Rows 0 and 1 read the counters (CUPTI refused) and the fake source beside them.
  CounterFigures refused;
  refused.unavailable = "no permission";
  rep.rows[0].counters = refused;
  rep.rows[0].counters->sources = {power(312.5)};
  rep.rows[1].counters = refused;
  rep.rows[1].counters->sources = {power(std::nullopt, "no sensor, say")};
  return rep;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(CounterSources, AFakeSourceAddsItsColumnsToBenchCsv) {
  const std::vector<std::string> lines =
      lines_of(format_bench(bench_with_power(), OutputFormat::Csv));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], bench_csv_header(true) + ",pw_watts,pw_note");
  const std::vector<std::string> head = csv_fields(lines[0]);
  const auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  for (std::size_t i = 1; i < lines.size(); ++i)
    ASSERT_EQ(csv_fields(lines[i]).size(), head.size()) << lines[i];
  EXPECT_EQ(csv_fields(lines[1])[col("pw_watts")], "312.5");
  EXPECT_EQ(csv_fields(lines[1])[col("pw_note")], "");
  EXPECT_EQ(csv_fields(lines[1])[col("ctr_FMA")], "");
  EXPECT_EQ(csv_fields(lines[1])[col("ctr_note")], "no permission");
  EXPECT_EQ(csv_fields(lines[2])[col("pw_watts")], "");
  EXPECT_EQ(csv_fields(lines[2])[col("pw_note")], "no sensor, say");
  EXPECT_EQ(csv_fields(lines[3])[col("pw_watts")], "");
  EXPECT_EQ(csv_fields(lines[3])[col("pw_note")], "");
}

TEST(CounterSources, AFakeSourceInJsonAndMarkdown) {
  const BenchReport rep = bench_with_power();
  const nlohmann::json j = nlohmann::json::parse(format_bench(rep, OutputFormat::Json));
  const nlohmann::json& power0 = j["rows"][0]["counters"]["sources"]["fake power"];
  EXPECT_DOUBLE_EQ(power0["watts"].get<double>(), 312.5);
  EXPECT_TRUE(power0["note"].is_null());
  const nlohmann::json& power1 = j["rows"][1]["counters"]["sources"]["fake power"];
  EXPECT_TRUE(power1["watts"].is_null());
  EXPECT_EQ(power1["note"], "no sensor, say");
  EXPECT_TRUE(j["rows"][2]["counters"].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][0]["measured"]["kernel_ms"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["rows"][0]["measured"]["sm_cycles_mean"].get<double>(), 9e5);

  const std::string md = format_bench(rep, OutputFormat::Markdown);
  EXPECT_NE(md.find("Power (a fake source)."), std::string::npos) << md;
  EXPECT_NE(md.find("| samples | note | power W | note |"), std::string::npos) << md;
  EXPECT_NE(md.find("| A | fma5 | n/a |"), std::string::npos) << md;
  EXPECT_NE(md.find("| no permission | 312 | |"), std::string::npos) << md;
  EXPECT_NE(md.find("| n/a | no sensor, say |"), std::string::npos) << md;
}

TEST(CounterSources, AFakeSourceInAnExperimentReport) {
  ExperimentReport r;
  r.name = "fma-grouping";
  r.rows.push_back({"fma5", 1.0, 1.1, "ms", ""});
  r.rows.push_back({"fma4", 1.0, 0.9, "ms", ""});
  r.rows[1].counters = CounterFigures{};
  r.rows[1].counters->sources = {power(200)};
  const std::vector<std::string> lines = lines_of(format_experiment(r, OutputFormat::Csv));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], experiment_csv_header(true) + ",pw_watts,pw_note");
  EXPECT_EQ(csv_fields(lines[2]).back(), "");
  EXPECT_EQ(csv_fields(lines[2])[csv_fields(lines[2]).size() - 2], "200");
  EXPECT_EQ(csv_fields(lines[1])[csv_fields(lines[1]).size() - 2], "");
}

// The hardware counters' own columns, named as the CSV header names them.
TEST(CounterSources, PmColumnsFollowTheFigures) {
  CounterFigures c;
  c.pipes = {{"FMA", 91.25}, {"SM active", 99.5}};
  c.clock_ghz = 1.98;
  c.samples = 42;
  const SourceColumns s = pm_columns(c);
  EXPECT_TRUE(s.read);
  EXPECT_EQ(s.note, "");
  ASSERT_EQ(s.columns.size(), 11u);
  EXPECT_EQ(s.columns[0].key, "FMA");
  EXPECT_EQ(s.columns[0].value, 91.25);
  EXPECT_FALSE(s.columns[1].value.has_value());  // fmaheavy: not counted
  EXPECT_EQ(s.columns[7].key, "SM active");
  EXPECT_EQ(s.columns[10].value, 42.0);
  EXPECT_EQ(column_text(s.columns[0]), "91.25 %");
  EXPECT_EQ(column_text(s.columns[1]), "-");
  c.unavailable = "no permission";
  const SourceColumns refused = pm_columns(c);
  EXPECT_EQ(refused.note, "no permission");
  for (const MeasureColumn& col : refused.columns) EXPECT_FALSE(col.value.has_value()) << col.key;
  EXPECT_FALSE(pm_columns(std::nullopt).read);
}

// The short-count guard replaces the hardware counters' figures, and keeps the other sources'.
TEST(CounterSources, WithheldCountsKeepTheOtherSources) {
  CounterFigures c;
  c.warp_instructions = 10;
  c.sources = {power(100)};
  withhold_short_counts(c, 1000);
  EXPECT_FALSE(c.unavailable.empty());
  ASSERT_EQ(c.sources.size(), 1u);
  EXPECT_EQ(c.sources[0].columns[0].value, 100.0);
}

}  // namespace
}  // namespace mp
