// A measured row's figures as named columns, grouped by the counter source that read them (the
// SMs' clock64 spans, CUDA events, CUPTI PM sampling, ...), so that reports and panels iterate
// sources and columns instead of naming each figure. Plain data; the sources' columns are made
// in src/io/counter_columns.h.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace mp {

struct MeasureColumn {
  std::string key;                             // the CSV and JSON name, after the source's prefix
  std::string title;                           // in tables and panels
  std::string unit;                            // "ms", "cycles", "%", "GHz"; empty for a count
  std::optional<double> value = std::nullopt;  // empty: not read, not counted, or not readable
  bool in_tables = true;  // false: files only (CSV, JSON), too long for a Markdown table
};

// One source's columns for one row: the same keys in the same order for every row.
struct SourceColumns {
  std::string source;  // its name: "CUPTI PM sampling"
  std::string prefix;  // of its CSV columns: "ctr_"
  std::string about;   // what a table of its columns shows, one paragraph (Markdown)
  std::vector<MeasureColumn> columns;
  bool read = false;  // the row has a reading of this source (valid or not)
  std::string note;   // where read but not readable: why, one line
};

// A value as a panel shows it: "12.346 ms", "91.2 %", "-" where there is none.
inline std::string column_text(const MeasureColumn& c) {
  if (!c.value) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g%s%s", *c.value, c.unit.empty() ? "" : " ", c.unit.c_str());
  return buf;
}

}  // namespace mp
