#include "io/experiment_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/counter_columns.h"
#include "io/format_number.h"
#include "io/table_text.h"

namespace mp {
namespace {

// Table cells: millions as "12.345 M", large counts whole, small values to 3 significant digits.
std::string cell(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return fmt("%.3f M", v / 1e6);
  if (a >= 1e4) return fmt("%.0f", v);
  if (a >= 100) return fmt("%.1f", v);
  return fmt("%.4g", v);
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string experiment_csv_header(bool with_counters) {
  return kExperimentCsvHeader + (with_counters ? counter_csv_header() : std::string());
}

nlohmann::json to_json(const ExperimentReport& r) {
  const bool counters = any_counters(r.rows);
  nlohmann::json rows = nlohmann::json::array();
  for (const ExperimentRow& row : r.rows) {
    rows.push_back({{"label", row.label},
                    {"predicted", optional_json(row.predicted)},
                    {"measured", row.measured},
                    {"unit", row.unit},
                    {"ratio", optional_json(row.ratio())},
                    {"note", row.note}});
    if (counters) {
      rows.back()["counters"] = counter_json(row.counters);
      rows.back()["model_busy"] = model_busy_json(row.model_busy);
    }
  }
  return {{"experiment", r.name},      {"title", r.title}, {"device", r.device},
          {"question", r.question},    {"model", r.model}, {"rows", rows},
          {"conclusion", r.conclusion}};
}

std::string format_experiment(const ExperimentReport& r, OutputFormat format) {
  std::ostringstream s;
  const bool counters = any_counters(r.rows);
  if (format == OutputFormat::Json) {
    s << to_json(r).dump(2) << "\n";
    return s.str();
  }
  if (format == OutputFormat::Csv) {
    const std::vector<SourceColumns> table = table_sources(r.rows);
    s << kExperimentCsvHeader << (counters ? columns_csv_header(table) : "") << "\n";
    for (const ExperimentRow& row : r.rows) {
      const auto ratio = row.ratio();
      s << csv_field(r.name) << "," << csv_field(row.label) << ","
        << (row.predicted ? fmt("%.9g", *row.predicted) : "") << "," << fmt("%.9g", row.measured)
        << "," << csv_field(row.unit) << "," << (ratio ? fmt("%.6g", *ratio) : "") << ","
        << csv_field(row.note)
        << (counters ? columns_csv_cells(row_sources(table, row.counters)) : "") << "\n";
    }
    return s.str();
  }
  s << "## " << r.name << ": " << r.title << "\n\n"
    << "Device: " << r.device << "\n\n"
    << "Question: " << r.question << "\n\n"
    << "| what | predicted | measured | unit | measured / predicted | note |\n"
    << "|---|---:|---:|---|---:|---|\n";
  for (const ExperimentRow& row : r.rows) {
    const auto ratio = row.ratio();
    s << "| " << md_text(row.label) << " | " << (row.predicted ? cell(*row.predicted) : "-")
      << " | " << cell(row.measured) << " | " << md_text(row.unit) << " | "
      << (ratio ? fmt("%.3f", *ratio) : "-") << " | " << md_text(row.note) << " |\n";
  }
  if (counters) {
    const std::vector<SourceColumns> table = table_sources(r.rows);
    s << columns_md_head(table, "| what |", "|---|");
    for (const ExperimentRow& row : r.rows)
      s << "| " << md_text(row.label) << " |"
        << columns_md_cells(row_sources(table, row.counters), row.model_busy) << "\n";
  }
  s << "\n**Conclusion.** " << r.conclusion << "\n\n"
    << "Model: " << r.model << "\n";
  return s.str();
}

std::string format_prediction(const ExperimentReport& r, const std::string& measured_where,
                              OutputFormat format) {
  std::ostringstream s;
  if (format == OutputFormat::Json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ExperimentRow& row : r.rows)
      rows.push_back({{"label", row.label},
                      {"predicted", optional_json(row.predicted)},
                      {"measured", nullptr},
                      {"unit", row.unit},
                      {"note", row.note}});
    nlohmann::json j = {{"experiment", r.name},      {"title", r.title}, {"device", r.device},
                        {"question", r.question},    {"model", r.model}, {"rows", rows},
                        {"measured", measured_where}};
    if (r.rows.empty()) j["no_prediction"] = r.conclusion;
    s << j.dump(2) << "\n";
    return s.str();
  }
  if (format == OutputFormat::Csv) {
    s << "experiment,label,predicted,unit,note\n";
    for (const ExperimentRow& row : r.rows)
      s << csv_field(r.name) << "," << csv_field(row.label) << ","
        << (row.predicted ? fmt("%.9g", *row.predicted) : "") << "," << csv_field(row.unit) << ","
        << csv_field(row.note) << "\n";
    return s.str();
  }
  s << "## " << r.name << ": " << r.title << "\n\n"
    << "Question: " << r.question << "\n\n";
  if (r.rows.empty()) {
    s << "No prediction for " << r.device << " without a measurement: " << r.conclusion
      << ". Measured: " << measured_where << ".\n";
    return s.str();
  }
  s << "Predicted for " << r.device << ", by the model alone; measured: " << measured_where
    << "\n\n"
    << "| what | predicted | unit | note |\n"
    << "|---|---:|---|---|\n";
  for (const ExperimentRow& row : r.rows)
    s << "| " << md_text(row.label) << " | " << (row.predicted ? cell(*row.predicted) : "-")
      << " | " << md_text(row.unit) << " | " << md_text(row.note) << " |\n";
  s << "\nModel: " << r.model << "\n";
  return s.str();
}

}  // namespace mp
