// bench's and the experiments' tables parse back: CSV rows as wide as the header, JSON with
// every row's fields, the hardware counters' columns where any row read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "csv_fields.h"
#include "io/experiment_report.h"
#include "io/report.h"

namespace mp {
namespace {

BenchReport two_rows() {
  BenchReport rep;
  rep.device = {"Test GPU", 9, 0, 132, "issue 1/clk/SMSP", "declared"};
  for (bool by_cost : {false, true}) {
    MeasuredRow r;
    r.view_name = "B";
    r.variant = by_cost ? "fma4" : "fma5";
    r.width = 64;
    r.height = 32;
    r.frames = 10;
    r.measured = {0.5, 1e6, 2e7, 1e6, 9e5};
    r.metrics.fraction_of_bound = 0.75;
    r.tiles_by_cost = by_cost;
    r.differing_from_fma4 = 3;
    if (by_cost) r.limit = ViewLimit{1e6, 2e6, 0.4, 0.25, 1.98};
    rep.rows.push_back(r);
  }
  return rep;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string f; std::getline(in, f, sep);) out.push_back(f);
  return out;
}

TEST(BenchReport, CsvRowsMatchTheHeader) {
  const std::vector<std::string> lines = split(format_bench(two_rows(), OutputFormat::Csv), '\n');
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], kBenchCsvHeader);
  const std::vector<std::string> head = split(lines[0], ',');
  const auto col = std::find(head.begin(), head.end(), "tile_order") - head.begin();
  ASSERT_LT(col, static_cast<long>(head.size()));
  for (int i = 1; i <= 2; ++i) {
    std::vector<std::string> f = split(lines[i], ',');
    if (lines[i].back() == ',') f.emplace_back();  // the last field left empty
    ASSERT_EQ(f.size(), head.size()) << lines[i];
    EXPECT_EQ(f[col], i == 1 ? "rows" : "cost");
    // The view's limit and the frame's share of it; empty where there is none.
    const auto at = [&](const char* name) {
      return f[std::find(head.begin(), head.end(), name) - head.begin()];
    };
    EXPECT_EQ(at("limit_ms"), i == 1 ? "" : "0.4000");
    EXPECT_EQ(at("pct_of_limit"), i == 1 ? "" : "80.00");
    EXPECT_EQ(at("pct_of_limit_free"), i == 1 ? "" : "50.00");
  }
}

// A zoom path's views added up per variant, with the limits' sums, in Markdown and JSON.
TEST(BenchReport, ZoomTotalsAddUpTheRowsPerVariant) {
  BenchReport rep = two_rows();
  rep.rows.push_back(rep.rows[1]);  // fma4 at a second view: 0.5 ms, limit 0.4 (free 0.25)
  rep.zoom = zoom_totals(rep.rows);
  ASSERT_EQ(rep.zoom.size(), 2u);
  EXPECT_EQ(rep.zoom[1].variant, "fma4");
  EXPECT_EQ(rep.zoom[1].views, 2);
  EXPECT_DOUBLE_EQ(rep.zoom[1].kernel_ms, 1.0);
  EXPECT_DOUBLE_EQ(rep.zoom[1].limit_ms, 0.8);
  EXPECT_DOUBLE_EQ(rep.zoom[1].limit_free_ms, 0.5);
  EXPECT_EQ(rep.zoom[0].limit_ms, 0.0);  // fma5's row has no limit
  const std::string md = format_bench(rep, OutputFormat::Markdown);
  EXPECT_NE(md.find("| fma4 | 2 | 1.000 | 0.800 (0.500) | 80.0% (50.0%) |"), std::string::npos)
      << md;
  const nlohmann::json j = nlohmann::json::parse(format_bench(rep, OutputFormat::Json));
  EXPECT_EQ(j["zoom_totals"][1]["views"], 2);
  EXPECT_DOUBLE_EQ(j["rows"][1]["limit"]["pct_of_limit"].get<double>(), 80.0);
  EXPECT_TRUE(j["rows"][0]["limit"].is_null());
}

// One CSV file is one table: the present paths and the sine sweep, tables of their own, are
// refused rather than appended under another header.
TEST(BenchReport, CsvRefusesTheOtherTables) {
  BenchReport with_sweep = two_rows();
  with_sweep.sweep.resize(2);
  EXPECT_THROW(format_bench(with_sweep, OutputFormat::Csv), std::invalid_argument);
  BenchReport with_present = two_rows();
  with_present.present.push_back({"tbo", 1.5, "whole frame"});
  EXPECT_THROW(format_bench(with_present, OutputFormat::Csv), std::invalid_argument);
  const nlohmann::json j = nlohmann::json::parse(format_bench(with_sweep, OutputFormat::Json));
  EXPECT_EQ(j["sine_sweep"].size(), 2u);
}

TEST(BenchReport, JsonCarriesTheTileOrder) {
  const nlohmann::json j = nlohmann::json::parse(format_bench(two_rows(), OutputFormat::Json));
  ASSERT_TRUE(j.contains("rows"));
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["measured"]["tile_order"], "rows");
  EXPECT_EQ(j["rows"][1]["measured"]["tile_order"], "cost");
  EXPECT_DOUBLE_EQ(j["rows"][1]["model"]["pct_of_bound"].get<double>(), 75.0);
}

TEST(BenchReport, MarkdownSaysWhichOrder) {
  const std::string md = format_bench(two_rows(), OutputFormat::Markdown);
  EXPECT_NE(md.find("| B | fma5 | rows |"), std::string::npos) << md;
  EXPECT_NE(md.find("| B | fma4 | cost |"), std::string::npos) << md;
}

// A variant whose loop lists paths a step chooses between has a bound that is an upper one: its
// % of bound says so in its own cell, where a writer copying the row would otherwise quote it.
TEST(BenchReport, MarkdownMarksAPercentOfAnUpperBound) {
  BenchReport rep = two_rows();
  rep.rows[1].loop_branches = 3;
  rep.rows[1].metrics.fraction_of_bound = 7.2;
  const std::string md = format_bench(rep, OutputFormat::Markdown);
  EXPECT_NE(md.find("| 720.0% (of an upper bound) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 75.0% |"), std::string::npos) << md;
}

// What CUPTI would give a launch: FMA, ALU and issue counted, the other pipes not.
CounterFigures read_figures() {
  CounterFigures c;
  c.pipes = {{"FMA", 91.25}, {"ALU", 12.5}, {"issue", 95.75}, {"SM active", 99.5}};
  c.clock_ghz = 1.98;
  c.warp_instructions = 1.5e9;
  c.span_ms = 0.5;
  c.samples = 42;
  c.configuration = 1;
  return c;
}

CounterFigures unavailable_figures() {
  CounterFigures c;
  c.unavailable =
      "profiling not permitted, say \"NVreg_RestrictProfilingToAdminUsers=0\", then reboot";
  return c;
}

using test::csv_fields;

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  return std::find(header.begin(), header.end(), name) - header.begin();
}

const std::vector<std::string> kCounterColumns = {
    "ctr_FMA",     "ctr_fmaheavy", "ctr_fmalite",   "ctr_ALU",       "ctr_XU",
    "ctr_FP64",    "ctr_issue",    "ctr_SM_active", "ctr_clock_ghz", "ctr_warp_instructions",
    "ctr_samples", "ctr_note"};

// Without counters the header is the one scripts already read, and no column more.
TEST(BenchReport, NoCountersNoCounterColumns) {
  EXPECT_EQ(bench_csv_header(false), kBenchCsvHeader);
  const std::string csv = format_bench(two_rows(), OutputFormat::Csv);
  EXPECT_EQ(csv.find("ctr_"), std::string::npos);
  EXPECT_EQ(split(csv, '\n')[0], kBenchCsvHeader);
  const nlohmann::json j = nlohmann::json::parse(format_bench(two_rows(), OutputFormat::Json));
  EXPECT_FALSE(j["rows"][0].contains("counters"));
  EXPECT_EQ(format_bench(two_rows(), OutputFormat::Markdown).find("Hardware counters"),
            std::string::npos);
}

BenchReport with_counters() {
  BenchReport rep = two_rows();
  rep.rows[0].counters = read_figures();
  rep.rows[1].counters = unavailable_figures();
  rep.rows[0].limit = rep.rows[1].limit;  // both with the view's limit, as on a GPU
  return rep;
}

TEST(BenchReport, CsvCounterColumnsParseBack) {
  const std::vector<std::string> lines =
      split(format_bench(with_counters(), OutputFormat::Csv), '\n');
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], bench_csv_header(true));
  const std::vector<std::string> head = csv_fields(lines[0]);
  ASSERT_EQ(head.size(), csv_fields(kBenchCsvHeader).size() + kCounterColumns.size());
  EXPECT_TRUE(std::equal(kCounterColumns.begin(), kCounterColumns.end(),
                         head.end() - kCounterColumns.size()));
  const std::vector<std::string> read = csv_fields(lines[1]);
  ASSERT_EQ(read.size(), head.size()) << lines[1];
  EXPECT_DOUBLE_EQ(std::strtod(read[column(head, "ctr_FMA")].c_str(), nullptr), 91.25);
  EXPECT_DOUBLE_EQ(std::strtod(read[column(head, "ctr_ALU")].c_str(), nullptr), 12.5);
  EXPECT_DOUBLE_EQ(std::strtod(read[column(head, "ctr_SM_active")].c_str(), nullptr), 99.5);
  EXPECT_EQ(read[column(head, "ctr_XU")], "");  // not counted by this configuration
  EXPECT_DOUBLE_EQ(std::strtod(read[column(head, "ctr_clock_ghz")].c_str(), nullptr), 1.98);
  EXPECT_DOUBLE_EQ(std::strtod(read[column(head, "ctr_warp_instructions")].c_str(), nullptr),
                   1.5e9);
  EXPECT_EQ(read[column(head, "ctr_samples")], "42");
  EXPECT_EQ(read[column(head, "ctr_note")], "");
  EXPECT_EQ(read[column(head, "tile_order")], "rows");
  const std::vector<std::string> none = csv_fields(lines[2]);
  ASSERT_EQ(none.size(), head.size()) << lines[2];
  for (const std::string& c : kCounterColumns)
    if (c != "ctr_note") EXPECT_EQ(none[column(head, c)], "") << c;
  EXPECT_EQ(none[column(head, "ctr_note")], unavailable_figures().unavailable);
}

TEST(BenchReport, JsonCarriesTheCounters) {
  BenchReport rep = with_counters();
  rep.rows.push_back(rep.rows[0]);
  rep.rows.back().counters.reset();
  const nlohmann::json j = nlohmann::json::parse(format_bench(rep, OutputFormat::Json));
  ASSERT_EQ(j["rows"].size(), 3u);
  const nlohmann::json& c = j["rows"][0]["counters"];
  EXPECT_TRUE(c["unavailable"].is_null());
  EXPECT_DOUBLE_EQ(c["pipes"]["FMA"].get<double>(), 91.25);
  EXPECT_DOUBLE_EQ(c["pipes"]["issue"].get<double>(), 95.75);
  EXPECT_DOUBLE_EQ(c["pipes"]["SM active"].get<double>(), 99.5);
  EXPECT_TRUE(c["pipes"]["FP64"].is_null());
  EXPECT_DOUBLE_EQ(c["clock_ghz"].get<double>(), 1.98);
  EXPECT_DOUBLE_EQ(c["warp_instructions"].get<double>(), 1.5e9);
  EXPECT_DOUBLE_EQ(c["span_ms"].get<double>(), 0.5);
  EXPECT_EQ(c["samples"], 42);
  EXPECT_EQ(c["configuration"], 1);
  const nlohmann::json& u = j["rows"][1]["counters"];
  EXPECT_EQ(u["unavailable"], unavailable_figures().unavailable);
  EXPECT_TRUE(u["pipes"]["FMA"].is_null());
  EXPECT_TRUE(u["clock_ghz"].is_null());
  EXPECT_TRUE(u["samples"].is_null());
  ASSERT_TRUE(j["rows"][2].contains("counters"));
  EXPECT_TRUE(j["rows"][2]["counters"].is_null());
  EXPECT_EQ(to_json(rep.rows[0])["counters"]["pipes"]["ALU"], 12.5);
  EXPECT_FALSE(to_json(rep.rows[2]).contains("counters"));
}

TEST(BenchReport, MarkdownHasTheCountersTable) {
  const std::string md = format_bench(with_counters(), OutputFormat::Markdown);
  EXPECT_NE(md.find("Hardware counters (CUPTI PM sampling)"), std::string::npos) << md;
  EXPECT_NE(md.find("| view | variant | FMA | fmaheavy |"), std::string::npos) << md;
  EXPECT_NE(md.find("| B | fma5 | 91.2% | - | - | 12.5% | - | - | 95.8% | 99.5% | 1.980 | 42 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| B | fma4 | n/a |"), std::string::npos) << md;
  EXPECT_NE(md.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << md;
}

// A row's stall reading: two PCs of its kernel, one of another; selected 60, dispatch stall 25
// (of them 10 where nothing issued), wait 15.
MeasuredRow with_stalls(MeasuredRow r) {
  StallFigures f;
  for (const char* n : {"smsp__pcsamp_warps_issue_stalled_selected",
                        "smsp__pcsamp_warps_issue_stalled_dispatch_stall",
                        "smsp__pcsamp_warps_issue_stalled_dispatch_stall_not_issued",
                        "smsp__pcsamp_warps_issue_stalled_wait"})
    f.reasons.push_back(stall_reason(n));
  f.pcs.push_back({"kernel", 0x460, {40, 25, 10, 5}});
  f.pcs.push_back({"kernel", 0x10, {10, 0, 0, 10}});
  f.pcs.push_back({"other", 0x20, {10, 0, 0, 0}});
  f.readings = 3;
  f.period_log2 = 15;
  f.cupti_total = 105;
  f.dropped = 5;
  r.stalls = CounterFigures{};
  r.stalls->stalls = f;
  r.stall_kernel = "kernel";
  r.stall_loop_share = 70.0 / 90;
  return r;
}

TEST(BenchReport, StallTablesPerVariantAndView) {
  BenchReport rep = two_rows();
  rep.rows[0] = with_stalls(rep.rows[0]);
  rep.rows[1].stalls = CounterFigures{};
  rep.rows[1].stalls->unavailable = "Stall reasons (CUPTI PC sampling) need profiling permission";
  const std::string md = format_bench(rep, OutputFormat::Markdown);
  EXPECT_NE(md.find("a warp's state every 2^15 cycles of each SM"), std::string::npos) << md;
  EXPECT_NE(md.find("#### fma5 at B: 100 samples over 3 frames, 90.0% in kernel (77.8% of those "
                    "on its step loop's lines); 5 dropped by the hardware"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| selected (not a stall) | 60 | 60.0% | 0.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| dispatch stall | 25 | 25.0% | 10.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| wait | 15 | 15.0% | 0.0% |"), std::string::npos) << md;
  EXPECT_LT(md.find("| dispatch stall |"), md.find("| wait |")) << "most first";
  EXPECT_NE(md.find("#### fma4 at B: n/a (Stall reasons (CUPTI PC sampling) need profiling "
                    "permission)"),
            std::string::npos)
      << md;

  const nlohmann::json j = nlohmann::json::parse(format_bench(rep, OutputFormat::Json));
  const nlohmann::json& s = j["rows"][0]["stalls"];
  EXPECT_EQ(s["samples"], 100);
  EXPECT_EQ(s["readings"], 3);
  EXPECT_EQ(s["not_issued"], 10);
  EXPECT_EQ(s["leading_stall"], "dispatch stall");
  EXPECT_EQ(s["kernel"], "kernel");
  EXPECT_EQ(s["kernel_samples"], 90);
  EXPECT_DOUBLE_EQ(s["step_loop_share"].get<double>(), 70.0 / 90);
  ASSERT_EQ(s["states"].size(), 3u);
  EXPECT_EQ(s["states"][1]["state"], "dispatch stall");
  EXPECT_DOUBLE_EQ(s["states"][1]["share"].get<double>(), 0.25);
  EXPECT_EQ(s["states"][1]["not_issued"], 10);
  EXPECT_EQ(j["rows"][1]["stalls"]["unavailable"],
            "Stall reasons (CUPTI PC sampling) need profiling permission");
  EXPECT_FALSE(
      nlohmann::json::parse(format_bench(two_rows(), OutputFormat::Json))["rows"][0].contains(
          "stalls"));
}

ExperimentReport experiment_rows() {
  ExperimentReport r;
  r.name = "fma-grouping";
  r.title = "5 vs 4";
  r.device = "Test GPU (sm_90, 132 SMs)";
  r.rows.push_back({"fma5", 10.24e6, 10.5e6, "SM cycles", "97.5% of the bound"});
  r.rows.push_back({"fma4", 8.5e6, 8.75e6, "SM cycles", ""});
  r.rows.push_back({"fma5 / fma4, time", 1.2, 1.2, "x", "a ratio, no counters"});
  r.conclusion = "It does.";
  return r;
}

TEST(ExperimentReport, NoCountersNoCounterColumns) {
  EXPECT_EQ(experiment_csv_header(false), kExperimentCsvHeader);
  const std::string csv = format_experiment(experiment_rows(), OutputFormat::Csv);
  EXPECT_EQ(split(csv, '\n')[0], kExperimentCsvHeader);
  EXPECT_EQ(csv.find("ctr_"), std::string::npos);
  const nlohmann::json j = to_json(experiment_rows());
  EXPECT_FALSE(j["rows"][0].contains("counters"));
  EXPECT_EQ(format_experiment(experiment_rows(), OutputFormat::Markdown).find("Hardware counters"),
            std::string::npos);
}

TEST(ExperimentReport, CounterColumnsInEveryFormat) {
  ExperimentReport r = experiment_rows();
  r.rows[0].counters = read_figures();
  r.rows[1].counters = unavailable_figures();

  const std::vector<std::string> lines = split(format_experiment(r, OutputFormat::Csv), '\n');
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], experiment_csv_header(true));
  EXPECT_EQ(lines[0].rfind(kExperimentCsvHeader, 0), 0u);
  const std::vector<std::string> head = csv_fields(lines[0]);
  for (std::size_t i = 1; i < lines.size(); ++i)
    ASSERT_EQ(csv_fields(lines[i]).size(), head.size()) << lines[i];
  EXPECT_DOUBLE_EQ(std::strtod(csv_fields(lines[1])[column(head, "ctr_FMA")].c_str(), nullptr),
                   91.25);
  EXPECT_EQ(csv_fields(lines[1])[column(head, "ctr_samples")], "42");
  EXPECT_EQ(csv_fields(lines[2])[column(head, "ctr_FMA")], "");
  EXPECT_EQ(csv_fields(lines[2])[column(head, "ctr_note")], unavailable_figures().unavailable);
  for (const std::string& c : kCounterColumns) EXPECT_EQ(csv_fields(lines[3])[column(head, c)], "");

  const nlohmann::json j = nlohmann::json::parse(format_experiment(r, OutputFormat::Json));
  EXPECT_DOUBLE_EQ(j["rows"][0]["counters"]["pipes"]["ALU"].get<double>(), 12.5);
  EXPECT_EQ(j["rows"][1]["counters"]["unavailable"], unavailable_figures().unavailable);
  ASSERT_TRUE(j["rows"][2].contains("counters"));
  EXPECT_TRUE(j["rows"][2]["counters"].is_null());

  const std::string md = format_experiment(r, OutputFormat::Markdown);
  const auto table = md.find("Hardware counters (CUPTI PM sampling)");
  ASSERT_NE(table, std::string::npos) << md;
  EXPECT_LT(table, md.find("**Conclusion.**"));
  EXPECT_NE(md.find("| fma5 | 91.2% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fma4 | n/a |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fma5 / fma4, time | - |"), std::string::npos) << md;
}

}  // namespace
}  // namespace mp
