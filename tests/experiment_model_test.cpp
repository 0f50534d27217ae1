// The experiments lab without a GPU: predictions on hand-computed cases, the report formats
// read back, and the catalogue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "csv_fields.h"
#include "io/experiment_report.h"
#include "lab/experiments.h"
#include "model/experiment_model.h"

namespace mp {
namespace {

TEST(LatencyTable, Sm90IsTheMeasuredRowAndOthersSayWhereTheirNumbersComeFrom) {
  const LatencyTable h = latency_table(9, 0);
  EXPECT_TRUE(h.exact);
  EXPECT_DOUBLE_EQ(h.ffma.cycles, 4);
  EXPECT_EQ(h.ffma.source, LatencySource::Measured);
  EXPECT_DOUBLE_EQ(h.sin.cycles, 23);
  EXPECT_EQ(h.sin.source, LatencySource::Measured);
  EXPECT_EQ(h.fadd.source, LatencySource::Documented);
  const LatencyTable t = latency_table(7, 5);
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.ffma.source, LatencySource::Documented);
  EXPECT_EQ(t.sin.source, LatencySource::Assumed);
  const LatencyTable n = latency_table(12, 1);
  EXPECT_FALSE(n.exact);
  EXPECT_EQ(n.cc_major, 12);
  EXPECT_THROW(latency_table(6, 1), std::out_of_range);
  // The experiments window shows these: each says where its figure comes from in words, with no
  // path to a file users do not have.
  for (LatencySource s :
       {LatencySource::Measured, LatencySource::Documented, LatencySource::Assumed}) {
    const std::string text = latency_source_text(s);
    EXPECT_GT(text.size(), 10u);
    EXPECT_EQ(text.find('/'), std::string::npos) << text;
  }
}

// One dependent FFMA chain per thread, 16 steps per iteration, sm_90's loop bookkeeping
// (VIADD on the FMA pipe, ISETP, BRA): 17 FMA + 1 ALU + 1 other = 19 issue slots, and a
// critical path of 16 x 4 cycles.
const WarpLoop kOneChain{{17, 1, 0, 0, 1}, 64};

TEST(PredictSmsp, OneWarpWaitsOutTheLatency) {
  const SmspPrediction p = predict_smsp(pipe_rates(9, 0), kOneChain, 1);
  EXPECT_DOUBLE_EQ(p.issue_cycles, 19);  // 4 SMSPs x 19 / 4 issue per clock per SM
  EXPECT_DOUBLE_EQ(p.pipe_cycles, 17);   // 4 x 17 FMA / 4 per clock
  EXPECT_EQ(p.pipe, Pipe::Fma);
  EXPECT_DOUBLE_EQ(p.latency_cycles, 64);
  EXPECT_DOUBLE_EQ(p.cycles, 64);
  EXPECT_STREQ(p.limit(), "latency");
}

TEST(PredictSmsp, FourWarpsHideItAndIssueLimits) {
  const SmspPrediction p3 = predict_smsp(pipe_rates(9, 0), kOneChain, 3);
  EXPECT_DOUBLE_EQ(p3.cycles, 64);  // 57 issue cycles still fit in the latency
  const SmspPrediction p4 = predict_smsp(pipe_rates(9, 0), kOneChain, 4);
  EXPECT_DOUBLE_EQ(p4.issue_cycles, 76);
  EXPECT_DOUBLE_EQ(p4.cycles, 76);
  EXPECT_STREQ(p4.limit(), "issue");
}

// Turing's FMA pipe takes half a warp-instruction per clock per SMSP: the pipe, not issue,
// limits an FFMA loop there.
TEST(PredictSmsp, TuringIsFmaPipeBound) {
  const SmspPrediction p = predict_smsp(pipe_rates(7, 5), {{16, 2, 0, 0, 1}, 64}, 4);
  EXPECT_DOUBLE_EQ(p.issue_cycles, 76);
  EXPECT_DOUBLE_EQ(p.pipe_cycles, 128);  // 16 warps x 16 FFMA / 2 per clock per SM
  EXPECT_STREQ(p.limit(), "FMA pipe");
  EXPECT_THROW(predict_smsp(pipe_rates(9, 0), kOneChain, 0), std::invalid_argument);
}

// Four FFMA chains and one __sinf per step, 16 steps: 16 x (4 FFMA + FMUL.RZ) + VIADD = 81 FMA,
// 16 MUFU, ISETP, BRA = 99 issue slots; sine chains 4 links of 23 cycles per iteration.
TEST(PredictSmsp, SineStepIsXuBoundUnlessMufuBlocksIssue) {
  const WarpLoop loop{{81, 1, 16, 0, 1}, 92};
  const SmspPrediction p = predict_smsp(pipe_rates(9, 0), loop, 1);
  EXPECT_DOUBLE_EQ(p.pipe_cycles, 128);  // 4 x 16 MUFU / 0.5 per clock per SM
  EXPECT_EQ(p.pipe, Pipe::Xu);
  EXPECT_DOUBLE_EQ(p.cycles, 128);
  EXPECT_STREQ(p.limit(), "XU pipe");
  // Blocking: 83 other instructions + 16 MUFU x 8 cycles each, all in one warp.
  EXPECT_DOUBLE_EQ(blocking_mufu_cycles(pipe_rates(9, 0), loop, 1), 83 + 16 * 8);
  // Without any MUFU the hypotheses agree.
  EXPECT_DOUBLE_EQ(blocking_mufu_cycles(pipe_rates(9, 0), kOneChain, 1), 64);
}

TEST(LaunchOverhead, Seed002Inequality) {
  EXPECT_DOUBLE_EQ(fraction_with_overhead(19, 1), 0.95);
  EXPECT_DOUBLE_EQ(fraction_with_overhead(0, 0), 0);
  // 2 cycles per unit of work against 100 cycles of overhead: 0.95 x 100 / (0.05 x 2).
  const double k = work_for_fraction(2, 100, 0.95);
  EXPECT_NEAR(k, 950, 1e-9);
  EXPECT_NEAR(fraction_with_overhead(2 * k, 100), 0.95, 1e-12);
  EXPECT_THROW(work_for_fraction(0, 100, 0.95), std::invalid_argument);
  EXPECT_THROW(work_for_fraction(2, 100, 1.0), std::invalid_argument);
}

TEST(Dispatch, DistinctTargetsPerWarp) {
  std::vector<int> t(64 + 10);
  for (int i = 0; i < 32; ++i) t[i] = 3;           // warp 0: one target
  for (int i = 32; i < 64; ++i) t[i] = i % 4;      // warp 1: four
  for (int i = 64; i < 74; ++i) t[i] = i % 2 + 7;  // a partial warp: two
  EXPECT_DOUBLE_EQ(mean_distinct_per_warp(t), (1 + 4 + 2) / 3.0);
  EXPECT_DOUBLE_EQ(mean_distinct_per_warp({}), 0);
  // 1 ms with one target, 1.5 ms with two: 0.5 ms shared, 0.5 ms per target.
  const SerialisedCost c = fit_serialised(1.0, 1.5);
  EXPECT_DOUBLE_EQ(c.shared, 0.5);
  EXPECT_DOUBLE_EQ(c.per_target, 0.5);
  EXPECT_DOUBLE_EQ(c.time(8), 4.5);
  // Nothing shared: pure serialisation, p targets take p times as long.
  EXPECT_DOUBLE_EQ(fit_serialised(2.0, 4.0).time(8), 16.0);
}

ExperimentReport sample_report() {
  ExperimentReport r;
  r.name = "fma-grouping";
  r.title = "5 vs 4";
  r.device = "Test GPU (sm_90, 132 SMs)";
  r.question = "Does it?";
  r.model = "a model, with commas";
  r.rows.push_back({"fma5", 10.24e6, 10.5e6, "SM cycles", "97.5% of the bound"});
  r.rows.push_back({"baseline, no model", std::nullopt, 3.25, "us", "say \"hi\", twice"});
  r.rows.push_back({"ratio | piped", 1.25, 1.24, "x", ""});
  r.conclusion = "It does.";
  return r;
}

TEST(ExperimentReport, JsonParsesBackWithNullsWhereNothingWasPredicted) {
  const ExperimentReport r = sample_report();
  const nlohmann::json j = nlohmann::json::parse(format_experiment(r, OutputFormat::Json));
  EXPECT_EQ(j["experiment"], "fma-grouping");
  EXPECT_EQ(j["conclusion"], "It does.");
  EXPECT_EQ(j["model"], r.model);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["rows"][0]["predicted"].get<double>(), 10.24e6);
  EXPECT_DOUBLE_EQ(j["rows"][0]["ratio"].get<double>(), 10.5e6 / 10.24e6);
  EXPECT_TRUE(j["rows"][1]["predicted"].is_null());
  EXPECT_TRUE(j["rows"][1]["ratio"].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][1]["measured"].get<double>(), 3.25);
  EXPECT_EQ(j["rows"][1]["note"], "say \"hi\", twice");
}

using test::csv_fields;

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return *end == '\0';
}

TEST(ExperimentReport, CsvHasHeaderOneLinePerRowAndNumbersWhereNumbersBelong) {
  const ExperimentReport r = sample_report();
  std::istringstream in(format_experiment(r, OutputFormat::Csv));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), r.rows.size() + 1);
  EXPECT_EQ(lines[0], kExperimentCsvHeader);
  const std::size_t columns = csv_fields(lines[0]).size();
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const std::vector<std::string> f = csv_fields(lines[i + 1]);
    ASSERT_EQ(f.size(), columns) << lines[i + 1];
    EXPECT_EQ(f[0], "fma-grouping");
    EXPECT_EQ(f[1], r.rows[i].label);
    EXPECT_TRUE(is_number(f[3])) << f[3];
    EXPECT_DOUBLE_EQ(std::strtod(f[3].c_str(), nullptr), r.rows[i].measured);
    EXPECT_EQ(f[4], r.rows[i].unit);
    EXPECT_EQ(f[6], r.rows[i].note);
    if (r.rows[i].predicted) {
      EXPECT_TRUE(is_number(f[2])) << f[2];
      EXPECT_TRUE(is_number(f[5])) << f[5];
      EXPECT_NEAR(std::strtod(f[5].c_str(), nullptr), *r.rows[i].ratio(), 1e-5);
    } else {
      EXPECT_EQ(f[2], "");
      EXPECT_EQ(f[5], "");
    }
  }
}

TEST(ExperimentReport, MarkdownHasTheTableAndTheConclusion) {
  const ExperimentReport r = sample_report();
  const std::string md = format_experiment(r, OutputFormat::Markdown);
  EXPECT_NE(md.find("## fma-grouping: 5 vs 4"), std::string::npos);
  EXPECT_NE(md.find("Test GPU (sm_90, 132 SMs)"), std::string::npos);
  EXPECT_NE(md.find("**Conclusion.** It does."), std::string::npos);
  EXPECT_NE(md.find("10.240 M"), std::string::npos);  // predicted cycles, readable
  EXPECT_NE(md.find("ratio \\| piped"), std::string::npos);
  std::istringstream in(md);
  int table_lines = 0;
  for (std::string l; std::getline(in, l);) table_lines += !l.empty() && l[0] == '|';
  EXPECT_EQ(table_lines, static_cast<int>(r.rows.size()) + 2);
}

// The catalogue is the one list (help, --list, the window, scripts): names a shell can pass
// as they are, none twice, each with its title and question.
TEST(ExperimentCatalogue, EachNameOnceAndShellSafeWithItsQuestion) {
  const auto& names = experiment_names();
  ASSERT_EQ(names.size(), experiment_catalogue().size());
  ASSERT_FALSE(names.empty());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ExperimentInfo& e = experiment_catalogue()[i];
    EXPECT_EQ(names[i], e.name);
    EXPECT_EQ(std::count(names.begin(), names.end(), e.name), 1) << e.name;
    EXPECT_FALSE(e.name.empty());
    EXPECT_EQ(e.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"),
              std::string_view::npos)
        << e.name;
    EXPECT_FALSE(e.title.empty()) << e.name;
    EXPECT_GT(e.question.size(), 40u) << e.name;
  }
}

TEST(ExperimentCatalogue, UnknownNameListsTheKnownOnesBeforeTouchingTheGpu) {
  try {
    run_experiment("fma-grouping-typo", DeviceInfo{});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fma-grouping-typo"), std::string::npos);
    for (std::string_view n : experiment_names())
      EXPECT_NE(what.find(std::string(n)), std::string::npos) << n;
  }
}

// Without a GPU the command prints the model's prediction: every experiment gives rows with a
// predicted value and nothing measured, or says what its prediction rests on; no kernel runs.
TEST(ExperimentCatalogue, EveryExperimentPredictsWithoutAGpuOrSaysWhatItsPredictionRestsOn) {
  DeviceInfo sm90;  // no SMs, no clock: nothing can run on it
  sm90.name = "sm_90's figures";
  sm90.cc_major = 9;
  int predicted = 0;
  for (std::string_view name : experiment_names()) {
    const ExperimentReport r = predict_experiment(name, sm90);
    EXPECT_EQ(r.name, name);
    EXPECT_NE(r.device.find("sm_90"), std::string::npos) << r.device;
    if (r.rows.empty()) {
      EXPECT_NE(r.conclusion.find("rests on"), std::string::npos) << name;
      continue;
    }
    ++predicted;
    EXPECT_FALSE(r.model.empty()) << name;
    for (const ExperimentRow& row : r.rows) {
      ASSERT_TRUE(row.predicted.has_value()) << name << ": " << row.label;
      EXPECT_GT(*row.predicted, 0) << name << ": " << row.label;
      EXPECT_EQ(row.measured, 0) << name << ": " << row.label;
    }
    const std::string text = format_prediction(r, "needs a CUDA GPU", OutputFormat::Markdown);
    EXPECT_NE(text.find("| " + r.rows.front().label + " |"), std::string::npos) << text;
    // The same rows for scripts: JSON with nothing measured, CSV a line a row.
    const nlohmann::json j =
        nlohmann::json::parse(format_prediction(r, "needs a CUDA GPU", OutputFormat::Json));
    ASSERT_EQ(j["rows"].size(), r.rows.size()) << name;
    EXPECT_EQ(j["rows"][0]["predicted"].get<double>(), *r.rows.front().predicted) << name;
    EXPECT_TRUE(j["rows"][0]["measured"].is_null()) << name;
    EXPECT_EQ(j["measured"], "needs a CUDA GPU");
    const std::string csv = format_prediction(r, "needs a CUDA GPU", OutputFormat::Csv);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + static_cast<long>(r.rows.size()))
        << csv;
    EXPECT_EQ(csv.rfind("experiment,label,predicted,unit,note\n" + std::string(name) + ",", 0), 0u)
        << csv;
  }
  EXPECT_GE(predicted, 5);
  // fma-grouping: the seed's 5/4 per step, diluted by the loop's own instructions.
  const ExperimentReport grouping = predict_experiment("fma-grouping", sm90);
  ASSERT_EQ(grouping.rows.size(), 1u);
  EXPECT_GT(*grouping.rows[0].predicted, 1.2);
  EXPECT_LE(*grouping.rows[0].predicted, 1.25);
  EXPECT_THROW(predict_experiment("nope", sm90), std::invalid_argument);
}

TEST(ExperimentCatalogue, EveryArchitectureDeclaresEveryLoop) {
  for (int arch : {75, 80, 86, 89, 90}) {
    const std::vector<DeclaredLoop> loops = declared_loops(arch);
    EXPECT_EQ(loops.size(), 4u + 16u) << arch;
    for (const DeclaredLoop& l : loops) {
      EXPECT_FALSE(l.kernel.empty());
      EXPECT_GT(l.mix.total(), 16) << l.kernel;
    }
  }
}

}  // namespace
}  // namespace mp
