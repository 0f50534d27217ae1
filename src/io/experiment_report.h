// An experiment's result (model/experiment_report.h) in its Markdown, CSV and JSON forms.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/output_format.h"
#include "model/experiment_report.h"

namespace mp {

// JSON: rows carry "predicted" and "ratio" as null where there is no prediction, and where any
// row has counters, every row a "counters" object (null where it has none).
nlohmann::json to_json(const ExperimentReport& report);
// CSV: header then one line per row; fields holding commas or quotes are quoted (RFC 4180);
// empty predicted/ratio where there is no prediction.
inline constexpr const char* kExperimentCsvHeader =
    "experiment,label,predicted,measured,unit,ratio,note";
// kExperimentCsvHeader, followed by the ctr_ columns (empty in rows without counters) when any
// row has counters; Markdown then gains a counters table after the main one.
std::string experiment_csv_header(bool with_counters);
std::string format_experiment(const ExperimentReport& report, OutputFormat format);
// A prediction alone (lab's predict_experiment): its rows' predicted column, or why there is
// none; `measured_where` says where the measurement is to be had and why not here. JSON: rows
// with "measured" null, "no_prediction" where there are none; CSV: experiment_csv_header's
// columns without measured and ratio.
std::string format_prediction(const ExperimentReport& report, const std::string& measured_where,
                              OutputFormat format);

}  // namespace mp
