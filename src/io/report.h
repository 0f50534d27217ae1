// Tables of measurements as Markdown, CSV or JSON (bench), and the render sidecar.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/output_format.h"
#include "model/counter_figures.h"
#include "model/metrics.h"
#include "model/view.h"
#include "model/view_limit.h"
#include "model/whole_kernel.h"

namespace mp {

struct MeasuredRow {
  std::string view_name;
  std::string variant;
  int width = 0, height = 0;
  View view;
  int frames = 0;         // timed frames the median is taken over
  FrameNumbers measured;  // the median frame (by kernel time); its pixel_iters: steps run
  // Steps the pixels count (the sum of their step counts): more than run where a variant stops
  // orbits it finds periodic; 0 where the counts were not read.
  double counted_iters = 0;
  bool tiles_by_cost = false;  // its tiles went costliest first (by a frame of the same view)
  // The build of the kernel the median frame ran ("plain", "recording": it also recorded its
  // tiles' costs, "resumable"), whose SASS the whole-kernel model reads.
  std::string kernel_build = "plain";
  Metrics metrics;
  long long differing_from_fma4 =
      -1;  // pixels whose step count differs from fma4's; -1: not compared
  std::optional<CounterFigures> counters;  // empty: the counters were not asked for
  std::vector<CounterPipe> model_busy;     // each pipe's busy share by the model, %
  double model_instructions = 0;           // warp instructions in the modelled step loop
  // Branches within that loop's listing (LoopListing::branches_within): above 0 the model
  // counts every path's instructions, more than a trip issues, and its bound is an upper one.
  std::size_t loop_branches = 0;
  std::optional<ViewLimit> limit;  // the view's physical limit; empty: no peak clock
  // bench --stalls: what PC sampling saw over frames of their own after the timed ones (its
  // `stalls`, or `unavailable` saying why not); empty where not asked for.
  std::optional<CounterFigures> stalls;
  std::string stall_kernel;      // the kernel most samples were in, mangled
  double stall_loop_share = -1;  // of its samples, those on its step loop's lines; -1: no listing
  // The whole-kernel model of the median frame (bench, from the variant's step counts), and each
  // pipe's busy share by it, %; empty where the counts were not read, unusable (with the reason)
  // where the variant is not modelled.
  std::optional<WholeKernel> whole;
  std::vector<CounterPipe> whole_busy;
  Bound whole_bound;  // the whole kernel's bound (its instructions at the pipes' rates)
};

// Giter/s of the steps the pixels count, or -1 where they were not counted (Metrics::giter_per_s
// is of the steps run).
double counted_giter_per_s(const MeasuredRow& r);

struct PresentRow {
  std::string path;
  double ms = 0;  // median per frame
  std::string what;
};

struct DeviceSummary {
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::string rates;       // PipeRates::describe()
  std::string mix_source;  // where the instruction mixes behind the bound came from
};

// fma4 with 0..4 __sinf per step: where neither the XU nor the FMA pipe/issue idles.
struct SineSweepRow {
  int sines = 0;
  InstrMix per_step;  // from the SASS when it could be read, else declared
  bool mix_from_sass = false;
  double warp_steps = 0;  // warp-issued steps of the frame
  double measured_cycles = 0;
  Bound bound;
  // Busy shares: pipe cycles over measured SM cycles (measured) or over the max-bound (predicted).
  double xu_busy = 0, issue_busy = 0, xu_predicted = 0, issue_predicted = 0;
};

// A zoom path's frames added up, per variant: what a user zooming along it waits, against the
// limits' sums.
struct ZoomTotal {
  std::string variant;
  int views = 0;
  double kernel_ms = 0, limit_ms = 0, limit_free_ms = 0;
};
std::vector<ZoomTotal> zoom_totals(const std::vector<MeasuredRow>& rows);

// A view past double, rendered by perturbation in one format (one asked for, or the precision
// rule's): the median frame's kernel time, with and without the bilinear approximation, beside its
// reference.
struct DeepRow {
  std::string view_name;
  std::string rendered_by;  // "perturbation (double)", ...
  int width = 0, height = 0;
  View view;
  int frames = 0;
  double kernel_ms = 0;      // median, with the approximation
  double every_step_ms = 0;  // median, every step iterated
  double counted = 0;        // steps counted, as the plain variants count them
  double iterated = 0;       // of them, run one at a time (with the approximation)
  double rebases = 0;
  // SIMT efficiency of the steps run one at a time: iterated / (32 x the warps' slowest lanes'),
  // with the approximation and with every step iterated.
  double simt = 0, every_step_simt = 0;
  int reference_bits = 0;
  double reference_steps = 0;
  double reference_ms = 0, table_ms = 0;
};

struct BenchReport {
  DeviceSummary device;
  std::vector<MeasuredRow> rows;
  std::vector<DeepRow> deep;    // views past double: perturbation instead of the variants
  std::vector<ZoomTotal> zoom;  // the rows of a zoom path, added up
  std::vector<PresentRow> present;
  std::vector<SineSweepRow> sweep;
  // --stalls: where the stall reasons came from, as the sampler describes itself once the bench
  // has run (beside PM sampling or taking turns with it), or why there were none.
  std::string stall_source;
};

// The sweep row where the less busy of XU and issue is busiest: measured, and predicted.
int balance_point(const std::vector<SineSweepRow>& sweep, bool measured);

// With a "counters" object where the row has counters.
nlohmann::json to_json(const MeasuredRow& r);
// CSV is one table, a row per view and variant, under this header: the present paths and the
// sine sweep are tables of their own, which JSON and Markdown carry and CSV cannot.
inline constexpr const char* kBenchCsvHeader =
    "view,variant,width,height,center_x,center_y,span,iters,frames,kernel_ms,sm_cycles,clock_ghz,"
    "giter_per_s,giter_per_s_counted,pixel_iters,pixel_iters_counted,warp_iters,simt_efficiency,"
    "sm_cycles_mean,sm_balance,tile_order,"
    "bound_max_cycles,bound_max_ms,bound_sum_cycles,bound_sum_ms,limiting_pipe,pct_of_bound,"
    "pixels_differing_from_fma4,limit_ms,limit_free_ms,pct_of_limit,pct_of_limit_free";
// kBenchCsvHeader, followed by the ctr_ columns when any row has counters.
std::string bench_csv_header(bool with_counters);
// Any row with counters gives every row the counter columns (JSON: "counters", null where none)
// and Markdown a counters table of its own; rows with stalls give JSON a "stalls" object and
// Markdown a table each (stall_table_md).
// Throws std::invalid_argument for CSV of a report with present or sweep rows.
std::string format_bench(const BenchReport& report, OutputFormat format);
// One row's stall reasons as Markdown: a heading with the samples, a table of the warp states
// seen, most first, with their shares of the samples and of those taken where nothing issued.
std::string stall_table_md(const MeasuredRow& r);

}  // namespace mp
