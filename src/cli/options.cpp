#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <sstream>

#include "model/variant_table.h"
#include "version.h"

namespace mp {
namespace {

std::optional<std::pair<double, double>> parse_point(const std::string& s) {
  std::istringstream in(s);
  double x, y;
  char comma;
  if (!(in >> x >> comma >> y) || comma != ',') return std::nullopt;
  in >> std::ws;
  if (!in.eof()) return std::nullopt;
  return std::make_pair(x, y);
}

struct Raw {
  std::string center, span, iters, variant = "fma4", bench_variant = "all", format = "md",
                                   present = "auto", tile_order = "cost", counter_interval;
  int width = -1, height = -1;
  bool no_vsync = false;
  bool palette_given = false;
};

// Whole-string number parsing, so "12abc" is an error rather than 12.
template <class T>
std::optional<T> parse_number(const std::string& s) {
  std::istringstream in(s);
  T v;
  if (!(in >> v)) return std::nullopt;
  in >> std::ws;
  if (!in.eof()) return std::nullopt;
  return v;
}

void add_view_options(CLI::App& app, Options& o, Raw& raw, bool image_size) {
  app.add_option("--center", raw.center, "view centre X,Y in the complex plane (default -0.5,0)");
  app.add_option("--span", raw.span, "width of the view in the complex plane (default 3)");
  app.add_option("--iters", raw.iters, "maximum iterations, 1..10^7 (default 1024)");
  app.add_option("--variant", raw.variant, "step variant: " + variant_names());
  const char* what = image_size ? "image" : "window";
  app.add_option("--width", raw.width, std::string(what) + " width in pixels, 1..16384");
  app.add_option("--height", raw.height, std::string(what) + " height in pixels, 1..16384");
  app.add_flag("--cpu", o.force_cpu, "use the CPU reference renderer even if a GPU is present");
  app.add_option("--palette", o.palette, "palette name from assets/palettes.json (default ember)")
      ->each([&raw](const std::string&) { raw.palette_given = true; });
}

// Returns an error message, or "" when every value is usable.
std::string finish(Options& o, const Raw& raw) {
  if (!raw.center.empty()) {
    const auto p = parse_point(raw.center);
    if (!p) return "--center: expected X,Y (two numbers), got '" + raw.center + "'";
    if (!std::isfinite(p->first) || !std::isfinite(p->second))
      return "--center: coordinates must be finite numbers, got '" + raw.center + "'";
    o.view.center_x = p->first;
    o.view.center_y = p->second;
  }
  if (!raw.span.empty()) {
    const auto span = parse_number<double>(raw.span);
    if (!span || !std::isfinite(*span) || *span <= 0)
      return "--span: must be a finite number > 0, got '" + raw.span + "'";
    o.view.span = *span;
  }
  if (!raw.iters.empty()) {
    const auto iters = parse_number<long long>(raw.iters);
    if (!iters || *iters < 1 || *iters > static_cast<long long>(kMaxIterations))
      return "--iters: must be a whole number from 1 to 10000000, got '" + raw.iters + "'";
    o.view.max_iter = static_cast<unsigned>(*iters);
  }
  if (raw.width != -1) o.width = raw.width;
  if (raw.height != -1) o.height = raw.height;
  o.window_size_given = raw.width != -1 || raw.height != -1;
  o.palette_given = raw.palette_given;
  for (const int* v : {&o.width, &o.height})
    if (*v < 1 || *v > kMaxImageSize)
      return std::string(v == &o.width ? "--width" : "--height") +
             ": must be between 1 and 16384, got " + std::to_string(*v);
  const auto variant = find_variant(raw.variant);
  if (!variant) return "--variant: unknown '" + raw.variant + "' (known: " + variant_names() + ")";
  o.variant = *variant;
  return "";
}

void add_counter_interval(CLI::App& app, Raw& raw) {
  app.add_option("--counter-interval", raw.counter_interval,
                 "hardware counters' PM sampling interval in microseconds, 10..100000 (default: "
                 "the command's own)");
}

std::string parse_format(const std::string& s, Options& o) {
  if (s == "md")
    o.format = OutputFormat::Markdown;
  else if (s == "csv")
    o.format = OutputFormat::Csv;
  else if (s == "json")
    o.format = OutputFormat::Json;
  else
    return "--format: expected md, csv or json, got '" + s + "'";
  return "";
}

}  // namespace

ParseResult parse_command_line(const std::vector<std::string>& args) {
  Options o;
  Raw raw;
  CLI::App app{"mandelpipe: the Mandelbrot set, and how it keeps the GPU's pipes busy",
               "mandelpipe"};
  app.set_version_flag("--version", std::string("mandelpipe ") + kVersion);
  add_view_options(app, o, raw, false);
  app.add_option("--frames", o.frames, "quit after N frames (0: run until closed)");
  app.add_option("--screenshot", o.screenshot,
                 "save the window, UI included, as PNG at exit (once the kernels' SASS is read)");
  app.add_flag("--no-vsync", raw.no_vsync, "start with vsync off (toggle with V)");
  app.add_option("--present", raw.present, "CUDA-to-GL path: auto, tbo, pbo, image");
  app.add_flag("--overlay", o.overlay,
               "start with the pipe-utilisation overlay shown (toggle with P)");
  app.add_flag("--overlay-ab", o.overlay_ab,
               "with --frames: show the pipe overlay in every other block of frames and report "
               "the mean and median frame time with and without it (what it costs, drift "
               "cancelled)");
  app.add_flag("--counters-ab", o.counters_ab,
               "with --frames: sample the hardware counters in every other block of frames and "
               "report frame and kernel time with and without them (what they cost)");
  app.add_flag("--sass", o.sass_view,
               "start with the SASS view of the step loop shown (toggle with S)");
  app.add_flag("--divergence", o.divergence,
               "start with the divergence heat map shown (toggle with D)");
  app.add_option("--open-experiment", o.open_experiment,
                 "start with the experiments window open, running NAME (needs a GPU; toggle "
                 "with E)");
  app.add_option("--capture-dir", o.capture_dir,
                 "folder for F12 captures and saved tables (default: the working folder)");
  app.add_flag("--no-counters", o.no_counters, "do not start the hardware counters");
  add_counter_interval(app, raw);

  CLI::App* render = app.add_subcommand("render", "render one image without a window (PNG + JSON)");
  render->add_option("--out", o.out, "output PNG; a sidecar FILE.json gets the measurements")
      ->required();
  add_view_options(*render, o, raw, true);

  CLI::App* bench = app.add_subcommand(
      "bench", "time every variant at three fixed 3840x2160 views (needs a GPU)");
  bench->add_option("--variant", raw.bench_variant, "variant to time, or all (default all)");
  bench->add_option("--format", raw.format,
                    "md, csv or json (default md); csv is the views' table alone, so not with "
                    "--sin-sweep or --present");
  bench->add_option("--frames", o.bench_frames, "timed frames per view, >= 10 (default 10)");
  bench->add_flag("--sin-sweep", o.bench_sin_sweep,
                  "also sweep fma4 + 0..4 __sinf per step to find where XU and issue balance");
  bench->add_flag("--present", o.bench_present,
                  "also time the CUDA-to-GL present paths at 4K (needs EGL)");
  bench->add_option("--tile-order", raw.tile_order,
                    "cost (default): tiles costliest first, by the previous frame of the same "
                    "view; rows: every frame in tile numbering order, as a new view's first");
  const char* counters_help =
      "read the GPU's pipe counters (CUPTI PM sampling) beside the model; columns say n/a with "
      "the reason where unavailable";
  bench->add_flag("--counters", o.counters, counters_help);
  add_counter_interval(*bench, raw);
  CLI::App* experiment = app.add_subcommand(
      "experiment",
      "run one of the seed experiments: prediction, measurement, ratio (needs a GPU)");
  experiment
      ->add_option("name", o.experiment,
                   "fma-grouping, sin-overlap, warps-per-smsp, single-warp-ilp, "
                   "launch-overhead, dependent-latency or dispatch")
      ->required();
  experiment->add_option("--format", raw.format, "md, csv or json (default md)");
  experiment->add_flag("--counters", o.counters, counters_help);
  add_counter_interval(*experiment, raw);
  app.require_subcommand(0, 1);

  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);  // CLI11 wants them reversed
  ParseResult r;
  try {
    app.parse(rev);
  } catch (const CLI::Success& e) {  // --help, --version
    std::ostringstream out, err;
    r.exit_code = app.exit(e, out, err);
    r.out = out.str() + err.str();
    return r;
  } catch (const CLI::ParseError& e) {
    r.exit_code = 2;
    r.err = e.what();
    return r;
  }
  // Options of the window given before a subcommand would be silently ignored: say so.
  if (render->parsed() || bench->parsed() || experiment->parsed())
    for (const char* w :
         {"--frames", "--screenshot", "--no-vsync", "--present", "--overlay", "--overlay-ab",
          "--counters-ab", "--sass", "--divergence", "--open-experiment", "--capture-dir",
          "--no-counters", "--counter-interval"})
      if (app.count(w)) {
        r.exit_code = 2;
        r.err = std::string(w) + ": a window option; it does nothing with a subcommand";
        return r;
      }
  if (render->parsed()) o.command = Command::Render;
  if (bench->parsed()) o.command = Command::Bench;
  if (experiment->parsed()) o.command = Command::Experiment;
  if (o.command == Command::Render) {
    o.width = 1920;  // a picture, not a window: defaults to full HD
    o.height = 1080;
  }
  std::string e = finish(o, raw);
  if (e.empty() && !raw.counter_interval.empty()) {
    const auto us = parse_number<long long>(raw.counter_interval);
    if (!us || *us < 10 || *us > 100000)
      e = "--counter-interval: must be a whole number of microseconds from 10 to 100000, got '" +
          raw.counter_interval + "'";
    else
      o.counter_interval_us = static_cast<int>(*us);
  }
  auto is_png = [](const std::string& p) {
    return p.size() > 4 &&
           (p.compare(p.size() - 4, 4, ".png") == 0 || p.compare(p.size() - 4, 4, ".PNG") == 0);
  };
  if (e.empty() && o.command == Command::Render && !is_png(o.out))
    e = "--out: the image is written as PNG, so name it FILE.png (its sidecar is FILE.json)";
  if (e.empty() && !o.screenshot.empty() && !is_png(o.screenshot))
    e = "--screenshot: screenshots are PNG, so name it FILE.png";
  if (e.empty() && o.command == Command::Window) {
    o.vsync = !raw.no_vsync;
    if (o.frames < 0) e = "--frames: must be >= 0";
    if (e.empty() && o.overlay_ab && o.frames < 100)
      e = "--overlay-ab: needs --frames N with N >= 100, to time both halves";
    if (e.empty() && o.counters_ab && o.frames < 100)
      e = "--counters-ab: needs --frames N with N >= 100, to time both halves";
    if (e.empty() && o.counters_ab && (o.overlay_ab || o.no_counters))
      e = "--counters-ab: times the counters alone, so not with --overlay-ab or --no-counters";
    if (const auto m = parse_present_mode(raw.present))
      o.present = *m;
    else if (e.empty())
      e = "--present: expected auto, tbo, pbo or image, got '" + raw.present + "'";
  }
  if (e.empty() && o.command == Command::Bench) {
    if (raw.bench_variant != "all") {
      const auto v = find_variant(raw.bench_variant);
      if (!v)
        e = "--variant: unknown '" + raw.bench_variant + "' (known: all, " + variant_names() + ")";
      else
        o.bench_variants = {*v};
    }
    if (e.empty()) e = parse_format(raw.format, o);
    // Refused here, not after the timing: a CSV file is one table, and these are others.
    if (e.empty() && o.format == OutputFormat::Csv && (o.bench_sin_sweep || o.bench_present))
      e = std::string("--format csv: one table, a row per view and variant; ") +
          (o.bench_sin_sweep && o.bench_present
               ? "--sin-sweep and --present add tables of their own"
           : o.bench_sin_sweep ? "--sin-sweep adds a table of its own"
                               : "--present adds a table of its own") +
          ": use --format json (or md)";
    if (raw.tile_order == "rows")
      o.tile_order = TileOrder::Rows;
    else if (raw.tile_order != "cost" && e.empty())
      e = "--tile-order: expected cost or rows, got '" + raw.tile_order + "'";
    if (e.empty() && (o.bench_frames < 10 || o.bench_frames > 10000))
      e = "--frames: bench needs between 10 and 10000 timed frames";
  }
  if (e.empty() && o.command == Command::Experiment) e = parse_format(raw.format, o);
  if (!e.empty()) {
    r.exit_code = 2;
    r.err = e;
    return r;
  }
  r.options = o;
  return r;
}

}  // namespace mp
