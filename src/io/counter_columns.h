// The hardware counters' columns (CUPTI PM sampling) that bench's and the experiments' tables
// gain when any of their rows read the counters. Header-only: both reports' sources share it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "io/format_number.h"
#include "io/table_text.h"
#include "model/counter_figures.h"

namespace mp {

// The pipes in column order, named as CounterPipe names them.
inline constexpr const char* kCounterPipeNames[] = {"FMA", "fmaheavy", "fmalite", "ALU",
                                                    "XU",  "FP64",     "issue",   "SM active"};

// Any row with counters gives every row the columns, so that each table stays rectangular.
template <class Rows>
bool any_counters(const Rows& rows) {
  for (const auto& r : rows)
    if (r.counters) return true;
  return false;
}

// ",ctr_FMA,...,ctr_note": what a CSV header gains.
inline std::string counter_csv_header() {
  std::string h;
  for (const char* pipe : kCounterPipeNames) {
    h += ",ctr_";
    for (const char* c = pipe; *c; ++c) h += *c == ' ' ? '_' : *c;
  }
  return h + ",ctr_clock_ghz,ctr_warp_instructions,ctr_samples,ctr_note";
}

// A row's counter fields, each after a comma: empty where none were read, or where they could
// not be (ctr_note then says why), or for a pipe its configuration did not count.
inline std::string counter_csv_cells(const std::optional<CounterFigures>& c) {
  const bool valid = c && c->unavailable.empty();
  std::string s;
  for (const char* name : kCounterPipeNames) {
    const CounterPipe* pipe = valid ? c->find(name) : nullptr;
    s += "," + (pipe ? fmt("%.17g", pipe->pct) : std::string());
  }
  if (!valid) return s + ",,,," + (c ? csv_field(c->unavailable) : std::string());
  return s + "," + fmt("%.17g", c->clock_ghz) + "," + fmt("%.17g", c->warp_instructions) + "," +
         std::to_string(c->samples) + ",";
}

// null where none were read; else every pipe named, null where not counted or not readable.
inline nlohmann::json counter_json(const std::optional<CounterFigures>& c) {
  if (!c) return nullptr;
  const bool valid = c->unavailable.empty();
  const auto value = [valid](auto v) { return valid ? nlohmann::json(v) : nlohmann::json(); };
  nlohmann::json pipes = nlohmann::json::object();
  for (const char* name : kCounterPipeNames) {
    const CounterPipe* pipe = valid ? c->find(name) : nullptr;
    pipes[name] = pipe ? nlohmann::json(pipe->pct) : nlohmann::json();
  }
  return {{"unavailable", valid ? nlohmann::json() : nlohmann::json(c->unavailable)},
          {"pipes", pipes},
          {"clock_ghz", value(c->clock_ghz)},
          {"warp_instructions", value(c->warp_instructions)},
          {"span_ms", value(c->span_ms)},
          {"samples", value(c->samples)},
          {"configuration", value(c->configuration)}};
}

// The Markdown counters table's title and header, after the rows' own first columns `lead`
// ("| view | variant |") and their alignment (`lead_align`, "|---|---|").
inline std::string counter_md_head(const std::string& lead, const std::string& lead_align) {
  std::string head = lead, align = lead_align;
  for (const char* name : kCounterPipeNames) {
    head += std::string(" ") + name + " |";
    align += "---:|";
  }
  return "\nHardware counters (CUPTI PM sampling): busy cycles over the measured SM cycles, per "
         "pipe, the model's figure beside it as (m ...); - not counted, n/a not readable (the "
         "note says why).\n\n" +
         head + " clock GHz | samples | note |\n" + align + "---:|---:|---|\n";
}

// The model's busy shares as JSON ({"FMA": 93.1, ...}), beside the counters'.
inline nlohmann::json model_busy_json(const std::vector<CounterPipe>& model) {
  nlohmann::json j = nlohmann::json::object();
  for (const CounterPipe& p : model) j[p.name] = p.pct;
  return j;
}

// A row's cells in that table, each after a space and closed by '|': the counters' figure, and
// the model's beside it where it has the pipe ("93.2% (m 92.9)").
inline std::string counter_md_cells(const std::optional<CounterFigures>& c,
                                    const std::vector<CounterPipe>& model = {}) {
  const bool valid = c && c->unavailable.empty();
  const std::string none = c ? "n/a" : "-";
  std::string s;
  for (const char* name : kCounterPipeNames) {
    const CounterPipe* pipe = valid ? c->find(name) : nullptr;
    std::string cell = pipe ? fmt("%.1f%%", pipe->pct) : valid ? std::string("-") : none;
    for (const CounterPipe& m : model)
      if (valid && m.name == name) cell += fmt(" (m %.1f)", m.pct);
    s += " " + cell + " |";
  }
  if (!valid)
    return s + " " + none + " | " + none + " | " + (c ? md_text(c->unavailable) : "") + " |";
  return s + " " + fmt("%.3f", c->clock_ghz) + " | " + std::to_string(c->samples) + " | |";
}

}  // namespace mp
