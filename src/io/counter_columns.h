// The counter sources' columns (cuda/measure_kit.h's, CUPTI PM sampling, any further source
// a row carries) as bench's and the experiments' tables show them: every format iterates the
// sources and their columns (src/model/measure_columns.h). Header-only: both reports share it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/format_number.h"
#include "io/table_text.h"
#include "model/counter_figures.h"
#include "model/measure_columns.h"
#include "model/metrics.h"

namespace mp {

// The kit's sources (cuda/measure_kit.h) over one launch or frame.
inline SourceColumns events_columns(const FrameNumbers& f) {
  return {"CUDA events", "", "", {{"kernel_ms", "kernel time", "ms", f.kernel_ms}}, true, ""};
}
inline SourceColumns clock64_columns(const FrameNumbers& f) {
  return {"SM clock64",
          "",
          "",
          {{"sm_cycles", "SM cycles (max over SMs)", "cycles", f.sm_cycles},
           {"sm_cycles_mean", "SM cycles (mean over SMs)", "cycles", f.sm_cycles_mean},
           {"pixel_iters", "pixel-iterations", "", f.pixel_iters},
           {"warp_iters", "warp-issued iterations", "", f.warp_iters}},
          true,
          ""};
}

// The pipes CUPTI PM sampling reports, in column order, named as CounterPipe names them.
inline constexpr const char* kCounterPipeNames[] = {"FMA", "fmaheavy", "fmalite", "ALU",
                                                    "XU",  "FP64",     "issue",   "SM active"};

// CUPTI PM sampling's columns: each pipe's busy share (empty where its configuration did not
// count it), the clock, the instructions and the samples; all empty where none were read or
// they could not be (the note says why).
inline SourceColumns pm_columns(const std::optional<CounterFigures>& c) {
  SourceColumns s;
  s.source = "CUPTI PM sampling";
  s.prefix = "ctr_";
  s.about =
      "Hardware counters (CUPTI PM sampling): busy cycles over the measured SM cycles, per pipe, "
      "the model's figure beside it as (m ...); - not counted, n/a not readable (the note says "
      "why).";
  s.read = c.has_value();
  const bool valid = c && c->unavailable.empty();
  if (c && !valid) s.note = c->unavailable;
  for (const char* name : kCounterPipeNames) {
    const CounterPipe* pipe = valid ? c->find(name) : nullptr;
    s.columns.push_back({name, name, "%", pipe ? std::optional<double>(pipe->pct) : std::nullopt});
  }
  const auto value = [valid](double v) { return valid ? std::optional<double>(v) : std::nullopt; };
  s.columns.push_back({"clock_ghz", "clock GHz", "GHz", value(valid ? c->clock_ghz : 0)});
  s.columns.push_back({"warp_instructions", "warp instructions", "",
                       value(valid ? c->warp_instructions : 0), false});
  s.columns.push_back({"samples", "samples", "", value(valid ? c->samples : 0)});
  return s;
}

// The counter sources of one row, in column order: the hardware counters' (CUPTI PM sampling),
// then the further sources read over the same launch (CounterFigures::sources), by which a new
// source's columns reach every table.
inline std::vector<SourceColumns> counter_sources(const std::optional<CounterFigures>& c) {
  std::vector<SourceColumns> v{pm_columns(c)};
  if (c) v.insert(v.end(), c->sources.begin(), c->sources.end());
  return v;
}

// Any row with counters gives every row the columns, so that each table stays rectangular.
template <class Rows>
bool any_counters(const Rows& rows) {
  for (const auto& r : rows)
    if (r.counters) return true;
  return false;
}

// The sources a table's rows name, each once in first-seen order, without readings: the
// table's columns.
template <class Rows>
std::vector<SourceColumns> table_sources(const Rows& rows) {
  std::vector<SourceColumns> table = {pm_columns(std::nullopt)};
  for (const auto& r : rows)
    for (SourceColumns s : counter_sources(r.counters)) {
      bool known = false;
      for (const SourceColumns& t : table) known = known || t.source == s.source;
      if (known) continue;
      s.read = false;
      s.note.clear();
      for (MeasureColumn& c : s.columns) c.value.reset();
      table.push_back(std::move(s));
    }
  return table;
}

// A row's sources in the table's order: its own reading of each, else the table's blank.
inline std::vector<SourceColumns> row_sources(const std::vector<SourceColumns>& table,
                                              const std::optional<CounterFigures>& c) {
  const std::vector<SourceColumns> mine = counter_sources(c);
  std::vector<SourceColumns> v;
  for (const SourceColumns& t : table) {
    const SourceColumns* own = &t;
    for (const SourceColumns& m : mine)
      if (m.source == t.source) own = &m;
    v.push_back(*own);
  }
  return v;
}

// What a CSV header gains: ",ctr_FMA,...,ctr_note", each source's columns then its note.
inline std::string columns_csv_header(const std::vector<SourceColumns>& sources) {
  std::string h;
  for (const SourceColumns& s : sources) {
    for (const MeasureColumn& c : s.columns) {
      h += "," + s.prefix;
      for (char ch : c.key) h += ch == ' ' ? '_' : ch;
    }
    h += "," + s.prefix + "note";
  }
  return h;
}

// A row's cells under that header, each after a comma: empty where there is no value.
inline std::string columns_csv_cells(const std::vector<SourceColumns>& sources) {
  std::string cells;
  for (const SourceColumns& s : sources) {
    for (const MeasureColumn& c : s.columns)
      cells += "," + (c.value ? fmt("%.17g", *c.value) : std::string());
    cells += "," + csv_field(s.note);
  }
  return cells;
}

// The hardware counters' columns alone (CUPTI PM sampling), for a table of their rows.
inline std::string counter_csv_header() {
  return columns_csv_header({pm_columns(std::nullopt)});
}

// Further sources' columns as JSON, by source: {"NVML": {"power_w": 312.5, "note": null}}.
inline nlohmann::json sources_json(const std::vector<SourceColumns>& more) {
  nlohmann::json j = nlohmann::json::object();
  for (const SourceColumns& s : more) {
    nlohmann::json& o = j[s.source] = nlohmann::json::object();
    for (const MeasureColumn& c : s.columns)
      o[c.key] = c.value ? nlohmann::json(*c.value) : nullptr;
    o["note"] = s.note.empty() ? nlohmann::json() : nlohmann::json(s.note);
  }
  return j;
}

// null where none were read; else every pipe named, null where not counted or not readable, and
// the further sources' columns where there are any.
inline nlohmann::json counter_json(const std::optional<CounterFigures>& c) {
  if (!c) return nullptr;
  const bool valid = c->unavailable.empty();
  const auto value = [valid](auto v) { return valid ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json pipes = nlohmann::json::object();
  for (const char* name : kCounterPipeNames) {
    const CounterPipe* pipe = valid ? c->find(name) : nullptr;
    pipes[name] = pipe ? nlohmann::json(pipe->pct) : nlohmann::json();
  }
  nlohmann::json j = {{"unavailable", valid ? nlohmann::json() : nlohmann::json(c->unavailable)},
                      {"pipes", pipes},
                      {"clock_ghz", value(c->clock_ghz)},
                      {"warp_instructions", value(c->warp_instructions)},
                      {"span_ms", value(c->span_ms)},
                      {"samples", value(c->samples)},
                      {"configuration", value(c->configuration)}};
  if (!c->sources.empty()) j["sources"] = sources_json(c->sources);
  return j;
}

// The Markdown counters table's title and header, after the rows' own first columns `lead`
// ("| view | variant |") and their alignment (`lead_align`, "|---|---|").
inline std::string columns_md_head(const std::vector<SourceColumns>& sources,
                                   const std::string& lead, const std::string& lead_align) {
  std::string about, head = lead, align = lead_align;
  for (const SourceColumns& s : sources) {
    if (!s.about.empty()) about += (about.empty() ? "" : " ") + s.about;
    for (const MeasureColumn& c : s.columns)
      if (c.in_tables) {
        head += " " + c.title + " |";
        align += "---:|";
      }
    head += " note |";
    align += "---|";
  }
  return "\n" + about + "\n\n" + head + "\n" + align + "\n";
}

// The model's busy shares as JSON ({"FMA": 93.1, ...}), beside the counters'.
inline nlohmann::json model_busy_json(const std::vector<CounterPipe>& model) {
  nlohmann::json j = nlohmann::json::object();
  for (const CounterPipe& p : model) j[p.name] = p.pct;
  return j;
}

// A value in a Markdown table: percentages to 0.1, clocks and times to 0.001, counts whole.
inline std::string md_value(const MeasureColumn& c) {
  if (c.unit == "%") return fmt("%.1f%%", *c.value);
  if (c.unit == "GHz" || c.unit == "ms") return fmt("%.3f", *c.value);
  return fmt("%.0f", *c.value);
}

// A row's cells in that table, each after a space and closed by '|': a percentage with the
// model's figure for the same key beside it ("93.2% (m 92.9)"), - where there is no value,
// n/a where the source could not be read (the note says why).
inline std::string columns_md_cells(const std::vector<SourceColumns>& sources,
                                    const std::vector<CounterPipe>& model = {}) {
  std::string cells;
  for (const SourceColumns& s : sources) {
    const bool valid = s.read && s.note.empty();
    for (const MeasureColumn& c : s.columns) {
      if (!c.in_tables) continue;
      std::string cell = c.value ? md_value(c) : s.read && !valid ? "n/a" : "-";
      for (const CounterPipe& m : model)
        if (valid && c.unit == "%" && m.name == c.key) cell += fmt(" (m %.1f)", m.pct);
      cells += " " + cell + " |";
    }
    cells += valid ? " |" : " " + md_text(s.note) + " |";
  }
  return cells;
}

}  // namespace mp
