// Tables of measurements as Markdown, CSV or JSON (bench), and the render sidecar.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/options.h"
#include "model/metrics.h"

namespace mp {

struct MeasuredRow {
  std::string view_name;
  std::string variant;
  int width = 0, height = 0;
  View view;
  int frames = 0;         // timed frames the median is taken over
  FrameNumbers measured;  // the median frame (by kernel time)
  Metrics metrics;
  long long differing_from_fma4 = -1;  // pixels whose step count differs from fma4's; -1: not compared
};

struct PresentRow {
  std::string path;
  double ms = 0;  // median per frame
  std::string what;
};

struct DeviceSummary {
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string rates;  // PipeRates::describe()
};

struct BenchReport {
  DeviceSummary device;
  std::vector<MeasuredRow> rows;
  std::vector<PresentRow> present;
};

nlohmann::json to_json(const MeasuredRow& r);
std::string format_bench(const BenchReport& report, OutputFormat format);

}  // namespace mp
