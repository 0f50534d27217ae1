// bench's tables parse back: CSV rows as wide as the header, JSON with every row's fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

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
    const std::vector<std::string> f = split(lines[i], ',');
    ASSERT_EQ(f.size(), head.size()) << lines[i];
    EXPECT_EQ(f[col], i == 1 ? "rows" : "cost");
  }
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

}  // namespace
}  // namespace mp
