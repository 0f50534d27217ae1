#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include "cli/view_text.h"
#include "io/embedded.h"
#include "io/kfr_location.h"
#include "io/settings.h"
#include "model/bench_views.h"
#include "model/variant_table.h"
#include "version.h"

namespace mp {
namespace {

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// A centre "X,Y" for a view whose span is set: each coordinate in as many digits as typed, read
// at the precision the span needs (spaces around the numbers allowed). False when it is not two
// numbers within kMaxCentre.
bool read_centre(std::string_view s, View& v) {
  const auto comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  auto x = parse_centre(trimmed(s.substr(0, comma)), v);
  auto y = parse_centre(trimmed(s.substr(comma + 1)), v);
  if (!x || !y) return false;
  v.center_x = std::move(*x);
  v.center_y = std::move(*y);
  return true;
}

// A span of any exponent, > 0.
std::optional<FloatExp> span_of(std::string_view s) {
  return parse_view_span(trimmed(s));
}

// The spans a view takes, as the messages that refuse one say them.
std::string span_range() {
  return "from " + span_text(kMinSpan, 2) + " to 64";
}

// Values as typed, unset when the option was not given: an empty or negative value given on the
// command line is then an error, never mistaken for "use the default". An option of the same name
// in the window and a subcommand writes the same field, so that the view options given before
// `render` are render's and a repeat across the two is seen.
struct Raw {
  // the view and its colours (window and render)
  std::optional<std::string> center, span, iters, width, height, location, auto_iters, variant,
      palette, density, offset, stripe;
  bool cpu = false, pin = false, no_approximation = false;
  // what several commands take, each in its own sense
  std::optional<std::string> frames, format, counter_interval;
  bool counters = false;
  // window
  std::optional<std::string> present;
  bool no_vsync = false, overlay = false, overlay_ab = false, counters_ab = false, sass = false,
       divergence = false, no_counters = false, window_stalls = false;
  std::optional<std::string> screenshot, open_experiment, capture_dir;
  // render
  std::string out;
  std::optional<std::string> ss, zoom_to, exr, png_level, exr_compression;
  bool exr_frames = false, resume = false, fit_colours = false;
  // render and bench
  std::optional<std::string> devices;
  // bench: --view (repeatable), the zoom path's parts and the bench's own switches
  std::vector<std::string> bench_views;
  std::optional<std::string> zoom, zoom_from, zoom_to_span, zoom_steps, tile_order;
  bool sin_sweep = false, bench_present = false, stalls = false;
  // experiment
  std::string experiment;
  bool experiment_list = false;
};

// Whole-string number parsing, so "12abc" is an error rather than 12. Integers are read as
// decimal, leading zeros included ("010" is ten): CLI11 would read them as octal, and "08" not
// at all.
template <class T>
std::optional<T> parse_number(const std::string& s) {
  std::istringstream in(s);
  T v;
  if (!(in >> v)) return std::nullopt;
  in >> std::ws;
  if (!in.eof()) return std::nullopt;
  return v;
}

// A whole number from lo to hi, or nullopt.
std::optional<int> parse_int(const std::string& s, long long lo, long long hi) {
  const auto v = parse_number<long long>(s);
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return static_cast<int>(*v);
}

// An error quotes what was typed: its control characters escaped (\r, \x1b), so that the
// message stays one line and cannot move the terminal's cursor.
std::string printable(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7F) {
      out += ch;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as JSON needs.
bool is_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int len = c < 0x80                ? 1
                    : c >= 0xC2 && c < 0xE0 ? 2
                    : c >= 0xE0 && c < 0xF0 ? 3
                    : c >= 0xF0 && c < 0xF5 ? 4
                                            : 0;
    if (len == 0 || i + len > s.size()) return false;
    unsigned cp = len == 1 ? c : c & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

// An option whose value is kept as text in `to`, for the command's finish to check.
CLI::Option* add_text(CLI::App& app, const std::string& name, std::optional<std::string>& to,
                      const std::string& help) {
  return app.add_option_function<std::string>(
      name, [&to](const std::string& s) { to = s; }, help);
}

std::string palette_names() {
  std::string names;
  for (const Palette& p : parse_palettes(embedded::palettes_json))
    names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

// The view and colour options, of the window (image_size false) or render. Their names go into
// `shared`: given before `render`, they are render's.
void add_view_options(CLI::App& app, Raw& raw, bool image_size, std::vector<std::string>* shared) {
  std::vector<CLI::Option*> added;
  added.push_back(add_text(app, "--center", raw.center,
                           "view centre X,Y in the complex plane, each within 1000 of 0 and of "
                           "any number of digits (default -0.5,0)"));
  added.push_back(add_text(app, "--span", raw.span,
                           "width of the view in the complex plane, " + span_range() +
                               " (default 3, the whole set fitted to the image where --center "
                               "and --span are left out)"));
  added.push_back(
      add_text(app, "--iters", raw.iters, "maximum iterations, 1..10^7 (default 1024)"));
  added.push_back(add_text(app, "--location", raw.location,
                           "a Kalles Fraktaler location file (.kfr: Re, Im, Zoom, Iterations) as "
                           "the view; --iters, before or after it, sets the limit instead of "
                           "the file's Iterations (which may then be left out)")
                      ->type_name("FILE.kfr"));
  added.push_back(
      add_text(app, "--variant", raw.variant, "step variant (default fma4): " + variant_names()));
  const std::string size = image_size ? "image" : "window";
  const std::string range =
      image_size ? "1..65536 (default 1920x1080" : "1..16384 (default 1280x720, or the last size";
  const std::string alone = "; given alone, the other side keeps 16:9)";
  added.push_back(add_text(app, "--width", raw.width, size + " width in pixels, " + range + alone)
                      ->type_name("INT"));
  added.push_back(
      add_text(app, "--height", raw.height, size + " height in pixels, " + range + alone)
          ->type_name("INT"));
  added.push_back(
      app.add_flag("--cpu", raw.cpu, "use the CPU reference renderer even if a GPU is present"));
  added.push_back(app.add_flag(
      "--pin", raw.pin,
      "keep --variant at any depth: no move to fp64, df64 or perturbation past its precision "
      "(render refuses a view it cannot resolve)"));
  added.push_back(
      add_text(app, "--auto-iters", raw.auto_iters,
               "on|off: double the iteration limit while over 2% of the image's edge reaches it, "
               "or over 1% of the image escapes only in its last half, and doubling frees some "
               "(default: on in the window unless --iters is given, off for render; with "
               "--zoom-to, each frame from a preview, the limit rising with depth)")
          ->type_name("on|off"));
  added.push_back(
      app.add_flag("--no-approximation", raw.no_approximation,
                   "deep views: iterate every step, skip none by bilinear approximation"));
  added.push_back(
      add_text(app, "--palette", raw.palette, "palette (default ember): " + palette_names()));
  added.push_back(add_text(
      app, "--density", raw.density,
      "palette cycles per doubling of the iteration value, 0.05..1000 (default 1; the window's "
      "\"fit to image\" sets it for a deep view's narrow range of counts)"));
  added.push_back(add_text(app, "--offset", raw.offset, "palette phase, 0..1 (default 0)"));
  added.push_back(add_text(app, "--stripe", raw.stripe,
                           "weight of the variant's stripe term (fma4-sin), 0..1 (default 0.6)"));
  if (shared)
    for (const CLI::Option* opt : added) shared->push_back(opt->get_name());
}

void add_counter_options(CLI::App& app, Raw& raw, bool switch_too) {
  if (switch_too)
    app.add_flag("--counters", raw.counters,
                 "read the GPU's pipe counters (CUPTI PM sampling) beside the model; columns say "
                 "n/a with the reason where unavailable");
  add_text(app, "--counter-interval", raw.counter_interval,
           "hardware counters' PM sampling interval in microseconds, 10..100000 (default: 200)");
}

void add_devices(CLI::App& app, Raw& raw, const std::string& default_text) {
  add_text(app, "--devices", raw.devices,
           "the GPUs to use: all, or their numbers as the CUDA runtime gives them, such as 0,2 "
           "(default: " +
               default_text + ")")
      ->type_name("all|LIST");
}

void add_window_options(CLI::App& app, Raw& raw) {
  add_text(app, "--frames", raw.frames, "quit after N frames (0: run until closed; default 0)")
      ->type_name("INT");
  app.add_option("--screenshot", raw.screenshot,
                 "save the window, UI included, as PNG at exit, of a finished frame (past "
                 "--frames until one is) once the kernels' SASS is read");
  app.add_flag("--no-vsync", raw.no_vsync, "start with vsync off (toggle with V)");
  add_text(app, "--present", raw.present,
           "CUDA-to-GL path (default auto): " + present_mode_names());
  app.add_flag("--overlay", raw.overlay,
               "start with the pipe-utilisation overlay shown (toggle with P)");
  app.add_flag("--overlay-ab", raw.overlay_ab,
               "with --frames: show the pipe overlay in every other block of frames and report "
               "the mean and median frame time with and without it (what it costs, drift "
               "cancelled)");
  app.add_flag("--counters-ab", raw.counters_ab,
               "with --frames: sample the hardware counters in every other block of frames and "
               "report frame and kernel time with and without them (what they cost)");
  app.add_flag("--sass", raw.sass,
               "start with the SASS view of the step loop shown (toggle with S)");
  app.add_flag("--divergence", raw.divergence,
               "start with the divergence heat map shown (toggle with D)");
  app.add_option("--open-experiment", raw.open_experiment,
                 "start with the experiments window open, running NAME (needs a GPU; toggle "
                 "with E)");
  app.add_option("--capture-dir", raw.capture_dir,
                 "folder for F12 captures and saved tables (default: the working folder)");
  app.add_flag("--no-counters", raw.no_counters, "do not start the hardware counters");
  app.add_flag("--stalls", raw.window_stalls,
               "sample why warps stall (CUPTI PC sampling: the overlay's stall line, the SASS "
               "view's column) instead of the hardware counters (PM sampling), which cannot "
               "share the process with it");
  add_counter_options(app, raw, false);
}

void add_render_options(CLI::App& app, Raw& raw) {
  app.add_option("--out", raw.out,
                 "output PNG; a sidecar FILE.json (FILE.JSON for FILE.PNG) gets the measurements "
                 "(with --zoom-to: the folder for the frames, new or empty)")
      ->required();
  add_text(app, "--ss", raw.ss,
           "supersampling: 2, 3 or 4 samples a side per pixel, their colours averaged (default 1: "
           "none)")
      ->type_name("N");
  add_text(app, "--zoom-to", raw.zoom_to,
           "write a zoom sequence from the view (--center, --span) to this one into the folder "
           "--out: frame-00000.png ... and frames.json (with --frames)")
      ->type_name("X,Y,SPAN");
  add_text(app, "--frames", raw.frames, "--zoom-to: frames in the sequence, 2..100000")
      ->type_name("INT");
  add_text(app, "--exr", raw.exr,
           "also write the iteration data as OpenEXR (channels N and NF, as Kalles Fraktaler and "
           "zoomasm read them; needs --ss 1)")
      ->type_name("FILE.exr");
  app.add_flag("--fit-colours", raw.fit_colours,
               "density and offset that spread the palette over two cycles of the view's counts, "
               "from a preview of it (as the window's \"fit to image\"; a deep view's counts lie "
               "close together, which density 1 shows as nearly one colour); not with --density, "
               "--offset or --zoom-to");
  app.add_flag("--exr-frames", raw.exr_frames,
               "with --zoom-to: also frame-NNNNN.exr beside each frame (needs --ss 1)");
  add_text(app, "--exr-compression", raw.exr_compression,
           "with --exr or --exr-frames: OpenEXR's lossless compression, zip (default: the "
           "fastest that compresses), piz (smaller, several times slower), rle (larger) or none "
           "(largest: the disk's speed)")
      ->type_name("NAME");
  add_text(app, "--png-level", raw.png_level,
           "PNG compression, 0 (none: fastest, largest) to 9 (smallest, slowest); default " +
               std::to_string(kDefaultPngLevel) + ", the best time for the bytes measured")
      ->type_name("0..9");
  app.add_flag("--resume", raw.resume,
               "with --zoom-to: complete an interrupted sequence in --out, rendering only the "
               "frames it lacks (the same parameters as before)");
  add_devices(app, raw, "all");
}

void add_bench_options(CLI::App& app, Raw& raw) {
  add_text(app, "--variant", raw.variant, "variant to time, or all (default all)");
  add_text(app, "--format", raw.format,
           "md, csv or json (default md); csv is the views' table alone, so not with --sin-sweep, "
           "--present or --stalls");
  add_text(app, "--frames", raw.frames, "timed frames per view, 10..10000 (default 10)")
      ->type_name("INT");
  app.add_flag("--sin-sweep", raw.sin_sweep,
               "also sweep fma4 + 0..4 __sinf per step to find where XU and issue balance");
  app.add_flag("--present", raw.bench_present,
               "also time the CUDA-to-GL present paths at 4K (needs EGL)");
  app.add_flag("--stalls", raw.stalls,
               "also read why warps did not issue (CUPTI PC sampling) over 3 frames of each "
               "variant after its timed ones: a table per variant and view of the leading warp "
               "states with their shares of the samples; says why where unavailable");
  add_text(app, "--tile-order", raw.tile_order,
           "cost (default): tiles costliest first, by the previous frame of the same view; rows: "
           "every frame timed as a new view's first (tiles in numbering order, nothing known "
           "about the view), as --view and --zoom always are");
  add_counter_options(app, raw, true);
  add_devices(app, raw, "the first, 0; each given is timed in turn");
  app.add_option_function<std::vector<std::string>>(
         "--view", [&raw](const std::vector<std::string>& s) { raw.bench_views = s; },
         "time this view instead of A, B and C, each frame as the view's first: X,Y,SPAN,ITERS "
         "(repeatable)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("X,Y,SPAN,ITERS");
  add_text(app, "--zoom", raw.zoom,
           "time a zoom path about X,Y, each view as a first frame (with --from, --to, --steps)")
      ->type_name("X,Y");
  add_text(app, "--from", raw.zoom_from, "--zoom: the first view's span")->type_name("SPAN");
  add_text(app, "--to", raw.zoom_to_span, "--zoom: the last view's span")->type_name("SPAN");
  add_text(app, "--steps", raw.zoom_steps, "--zoom: views on the path, 1..10000")->type_name("INT");
  add_text(app, "--iters", raw.iters, "--zoom: iteration limit, 1..10^7 (default 1024)")
      ->type_name("INT");
  for (const char* name : {"--width", "--height"})
    add_text(app, name, name[2] == 'w' ? raw.width : raw.height,
             std::string("image ") + (name[2] == 'w' ? "width" : "height") +
                 " for every view, 1..16384 (default 3840x2160)")
        ->type_name("INT");
}

void add_experiment_options(CLI::App& app, Raw& raw) {
  // The names live with the experiments (the catalogue), which this library does not link.
  app.add_option("name", raw.experiment, "the experiment to run; --list names them");
  app.add_flag("--list", raw.experiment_list,
               "print the experiments, one a line with what each asks, and exit (no GPU needed)");
  add_text(app, "--format", raw.format, "md, csv or json (default md)");
  add_counter_options(app, raw, true);
}

// An experiment of the catalogue, or the error naming `option` and the known ones.
std::string known_experiment(const char* option, const std::string& name, const Catalogue& c) {
  if (c.experiments.empty() ||
      std::find(c.experiments.begin(), c.experiments.end(), name) != c.experiments.end())
    return "";
  std::string known;
  for (const std::string& n : c.experiments) known += (known.empty() ? "" : ", ") + n;
  return std::string(option) + ": unknown '" + name + "' (known: " + known + ")";
}

// A whole number option's value from lo to hi, or the error naming it.
std::string whole_number(const char* name, const std::optional<std::string>& text, long long lo,
                         long long hi, int& to, const std::string& what = "a whole number") {
  if (!text) return "";
  const auto v = parse_int(*text, lo, hi);
  if (!v)
    return std::string(name) + ": must be " + what + " from " + std::to_string(lo) + " to " +
           std::to_string(hi) + ", got '" + *text + "'";
  to = *v;
  return "";
}

std::string finish_counter_interval(const Raw& raw, int& us) {
  return whole_number("--counter-interval", raw.counter_interval, 10, 100000, us,
                      "a whole number of microseconds");
}

std::string finish_format(const Raw& raw, OutputFormat& f) {
  const std::string s = raw.format.value_or("md");
  if (s == "md")
    f = OutputFormat::Markdown;
  else if (s == "csv")
    f = OutputFormat::Csv;
  else if (s == "json")
    f = OutputFormat::Json;
  else
    return "--format: expected md, csv or json, got '" + s + "'";
  return "";
}

bool is_png(const std::string& p) {
  return p.size() > 4 &&
         (p.compare(p.size() - 4, 4, ".png") == 0 || p.compare(p.size() - 4, 4, ".PNG") == 0);
}

// The colour settings given, checked. Returns an error message or "".
std::string finish_colour(ViewOptions& o, const Raw& raw) {
  if (raw.palette) {
    const std::vector<Palette> palettes = parse_palettes(embedded::palettes_json);
    if (std::none_of(palettes.begin(), palettes.end(),
                     [&](const Palette& p) { return p.name == *raw.palette; }))
      return "--palette: unknown '" + *raw.palette + "' (known: " + palette_names() + ")";
    o.palette = *raw.palette;
    o.palette_given = true;
  }
  for (auto [name, text, lo, hi, to, given] :
       {std::make_tuple("--density", &raw.density, kMinDensity, kMaxDensity, &o.colour.density,
                        &o.colour_given.density),
        std::make_tuple("--offset", &raw.offset, 0.0f, 1.0f, &o.colour.offset,
                        &o.colour_given.offset),
        std::make_tuple("--stripe", &raw.stripe, 0.0f, 1.0f, &o.colour.stripe,
                        &o.colour_given.stripe)}) {
    if (!*text) continue;
    // Read as a float, so that the bounds as printed ("0.05", the float kMinDensity) pass.
    const auto v = parse_number<float>(**text);
    if (!v || !std::isfinite(*v) || *v < lo || *v > hi) {
      std::ostringstream range;
      range << lo << " to " << hi;
      return std::string(name) + ": must be a number from " + range.str() + ", got '" + **text +
             "'";
    }
    *to = *v;
    *given = true;
  }
  return "";
}

// The image's or window's size: a side given alone keeps the default's 16:9 (said in the note).
std::string finish_size(ViewOptions& o, const Raw& raw, int max_side, int& width, int& height) {
  for (auto [name, text, to] : {std::make_tuple("--width", &raw.width, &width),
                                std::make_tuple("--height", &raw.height, &height)})
    if (std::string e = whole_number(name, *text, 1, max_side, *to); !e.empty()) return e;
  if (raw.width.has_value() != raw.height.has_value()) {
    if (raw.width)
      height = std::clamp(static_cast<int>(std::lround(width * 9.0 / 16)), 1, max_side);
    else
      width = std::clamp(static_cast<int>(std::lround(height * 16.0 / 9)), 1, max_side);
    o.notes.push_back(std::string(raw.width ? "--width" : "--height") +
                      " alone: " + std::to_string(width) + "x" + std::to_string(height) +
                      ", the other side in 16:9 (give both for another shape)");
  }
  return "";
}

// The view, the variant and how they render. Returns an error message or "".
std::string finish_view(ViewOptions& o, const Raw& raw, int width, int height) {
  // The span first: it says how many bits the centre needs.
  if (raw.span) {
    const auto span = span_of(*raw.span);
    if (!span) return "--span: must be a number " + span_range() + ", got '" + *raw.span + "'";
    o.view.span = *span;
  }
  if (raw.center) {
    if (!read_centre(*raw.center, o.view))
      return "--center: expected X,Y (two numbers within +-1000), got '" + *raw.center + "'";
  } else {
    o.view.center_x = o.view.center_x.with_bits(view_bits(o.view));
    o.view.center_y = o.view.center_y.with_bits(view_bits(o.view));
  }
  if (raw.iters) {
    const auto iters = parse_int(*raw.iters, 1, kMaxIterations);
    if (!iters)
      return "--iters: must be a whole number from 1 to 10000000, got '" + *raw.iters + "'";
    o.view.max_iter = static_cast<unsigned>(*iters);
    o.iters_given = true;
  }
  if (raw.location) {
    if (raw.center || raw.span)
      return "--location: gives the view itself; leave out --center and --span";
    // --iters sets the limit: the file's Iterations is not read.
    const KfrResult k = load_kfr(*raw.location, raw.iters.has_value());
    if (!k.ok) return "--location: " + k.error;  // the error names the file
    if (const std::string left = kfr_left_out(k.location); !left.empty())
      o.notes.push_back("--location: " + left);
    ViewState current;
    current.view = o.view;
    const ViewTextResult v = kfr_location_view(k.location, current, width, height);
    // Its error as the file's, as the reading's are ("FILE: Zoom: ...").
    if (!v.ok) return "--location: " + *raw.location + v.error.substr(v.error.find(':'));
    const unsigned iters = o.view.max_iter;
    o.view = v.state.view;
    if (raw.iters) o.view.max_iter = iters;
    o.location = k.location;
  }
  o.view_given = raw.center || raw.span || raw.location;
  if (raw.auto_iters) {
    if (*raw.auto_iters != "on" && *raw.auto_iters != "off")
      return "--auto-iters: on or off, got '" + *raw.auto_iters + "'";
    o.auto_iters = *raw.auto_iters == "on";
  }
  const std::string name = raw.variant.value_or("fma4");
  const auto variant = find_variant(name);
  if (!variant) return "--variant: unknown '" + name + "' (known: " + variant_names() + ")";
  o.variant = *variant;
  o.force_cpu = raw.cpu;
  o.pin = raw.pin;
  o.no_approximation = raw.no_approximation;
  return finish_colour(o, raw);
}

std::string finish_window(WindowOptions& o, const Raw& raw, const Catalogue& catalogue) {
  if (std::string e = finish_size(o, raw, kMaxImageSize, o.width, o.height); !e.empty()) return e;
  o.window_size_given = raw.width || raw.height;
  if (std::string e = finish_view(o, raw, o.width, o.height); !e.empty()) return e;
  if (std::string e = finish_counter_interval(raw, o.counter_interval_us); !e.empty()) return e;
  // Given, these name something: an empty value is a mistake, not "none".
  for (const auto& [name, value] :
       {std::pair{"--screenshot", &raw.screenshot}, std::pair{"--capture-dir", &raw.capture_dir},
        std::pair{"--open-experiment", &raw.open_experiment}})
    if (*value && (*value)->empty()) return std::string(name) + ": needs a value, got ''";
  o.screenshot = raw.screenshot.value_or("");
  if (!o.screenshot.empty() && !is_png(o.screenshot))
    return "--screenshot: screenshots are PNG, so name it FILE.png";
  o.vsync = !raw.no_vsync;
  if (raw.frames) {
    if (const auto frames = parse_int(*raw.frames, 0, INT_MAX))
      o.frames = *frames;
    else
      return "--frames: must be a whole number from 0 (run until closed) to 2147483647, got '" +
             *raw.frames + "'";
  }
  o.overlay = raw.overlay;
  o.overlay_ab = raw.overlay_ab;
  o.counters_ab = raw.counters_ab;
  o.sass_view = raw.sass;
  o.divergence = raw.divergence;
  o.capture_dir = raw.capture_dir.value_or("");
  o.no_counters = raw.no_counters;
  o.stalls = raw.window_stalls;
  if (o.overlay_ab && o.frames < 100)
    return "--overlay-ab: needs --frames N with N >= 100, to time both halves";
  if (o.counters_ab && o.frames < 100)
    return "--counters-ab: needs --frames N with N >= 100, to time both halves";
  if (o.counters_ab && (o.overlay_ab || o.no_counters || o.stalls))
    return "--counters-ab: times the counters alone, so not with --overlay-ab, --no-counters or "
           "--stalls";
  if (o.stalls && o.no_counters)
    return "--stalls and --no-counters: --stalls samples PCs in the counters' place";
  const std::string present = raw.present.value_or("auto");
  if (const auto m = parse_present_mode(present))
    o.present = *m;
  else
    return "--present: expected one of " + present_mode_names() + ", got '" + present + "'";
  o.open_experiment = raw.open_experiment.value_or("");
  if (!o.open_experiment.empty())
    return known_experiment("--open-experiment", o.open_experiment, catalogue);
  return "";
}

// --devices checked: "all", or device numbers each given once. Returns an error or "".
std::string finish_devices(DeviceRequest& d, const Raw& raw) {
  if (!raw.devices) return "";
  d.given = true;
  if (*raw.devices == "all") return "";
  d.all = false;
  const std::string expected =
      "--devices: expected all or device numbers such as 0,1 (each 0..1023), got '" + *raw.devices +
      "'";
  std::istringstream in(*raw.devices);
  std::string field;
  while (std::getline(in, field, ',')) {
    const auto n = parse_int(field, 0, 1023);
    if (!n) return expected;
    if (std::find(d.list.begin(), d.list.end(), *n) != d.list.end())
      return "--devices: device " + std::to_string(*n) + " is given twice in '" + *raw.devices +
             "'";
    d.list.push_back(*n);
  }
  if (d.list.empty() || raw.devices->back() == ',') return expected;
  return "";
}

// render's view, colour, supersampling, compression, devices and zoom sequence, checked. Returns
// an error or "".
std::string finish_render(RenderOptions& o, const Raw& raw) {
  if (std::string e = finish_size(o, raw, kMaxRenderSide, o.width, o.height); !e.empty()) return e;
  if (std::string e = finish_view(o, raw, o.width, o.height); !e.empty()) return e;
  // No view asked for: the whole set fitted to the image, as the window starts.
  if (!o.view_given) o.view = fitted_set(o.width, o.height, o.view.max_iter);
  o.out = raw.out;
  if (raw.png_level) {
    const auto level = parse_int(*raw.png_level, kMinPngLevel, kMaxPngLevel);
    if (!level)
      return "--png-level: must be a whole number from 0 (no compression, fastest) to 9 "
             "(smallest), got '" +
             *raw.png_level + "'";
    o.png_level = *level;
  }
  if (std::string e = finish_devices(o.devices, raw); !e.empty()) return e;
  if (!o.devices.all && o.force_cpu) return "--devices: not with --cpu, which renders on the CPU";
  if (raw.ss) {
    const auto ss = parse_int(*raw.ss, 1, 4);
    if (!ss)
      return "--ss: expected 2, 3 or 4 samples a side per pixel (1: none), got '" + *raw.ss + "'";
    o.ss = *ss;
  }
  if (raw.exr) {
    const std::string& p = *raw.exr;
    if (p.size() < 5 ||
        (p.compare(p.size() - 4, 4, ".exr") != 0 && p.compare(p.size() - 4, 4, ".EXR") != 0))
      return "--exr: name the file FILE.exr, got '" + p + "'";
    if (raw.zoom_to) return "--exr: names one image; a zoom sequence takes --exr-frames";
    o.exr = p;
  }
  if (raw.exr_frames && !raw.zoom_to) return "--exr-frames: belongs to --zoom-to";
  if (raw.fit_colours && (raw.density || raw.offset))
    return "--fit-colours: sets density and offset itself; leave out --density and --offset";
  if (raw.fit_colours && raw.zoom_to)
    return "--fit-colours: one image's; a zoom sequence keeps one palette across its frames "
           "(give --density and --offset, as a fitted still's sidecar has them)";
  o.fit_colours = raw.fit_colours;
  o.exr_frames = raw.exr_frames;
  if ((raw.exr || raw.exr_frames) && o.ss != 1)
    return "--exr: the iteration data is one sample a pixel; leave out --ss";
  if (raw.exr_compression) {
    if (!raw.exr && !raw.exr_frames) return "--exr-compression: belongs to --exr or --exr-frames";
    const std::optional<ExrCompression> c = exr_compression_named(*raw.exr_compression);
    if (!c)
      return "--exr-compression: expected zip, piz, rle or none, got '" + *raw.exr_compression +
             "'";
    o.exr_compression = *c;
  }
  if (raw.resume && !raw.zoom_to) return "--resume: belongs to --zoom-to X,Y,SPAN";
  o.resume = raw.resume;
  if (raw.zoom_to) {
    std::string fields[3];
    std::istringstream in(*raw.zoom_to);
    int n = 0;
    while (n < 3 && std::getline(in, fields[n], ',')) ++n;
    View to;
    const auto span = span_of(fields[2]);
    if (span) to.span = *span;
    to.max_iter = o.view.max_iter;
    if (n != 3 || !in.eof() || !span || !read_centre(fields[0] + "," + fields[1], to))
      return "--zoom-to: expected X,Y,SPAN (centre within +-1000, span " + span_range() +
             "), got '" + *raw.zoom_to + "'";
    o.zoom_to = std::move(to);
    if (!raw.frames) return "--zoom-to: needs --frames N (2..100000)";
    const auto frames = parse_int(*raw.frames, 2, 100000);
    if (!frames)
      return "--frames: a zoom sequence needs a whole number from 2 to 100000, got '" +
             *raw.frames + "'";
    o.zoom_frames = *frames;
    if (is_png(o.out)) return "--out: with --zoom-to it names the folder for the frames, not a PNG";
  } else {
    if (raw.frames) return "--frames: belongs to --zoom-to X,Y,SPAN (a zoom sequence)";
    if (!is_png(o.out))
      return "--out: the image is written as PNG, so name it FILE.png (its sidecar is FILE.json)";
  }
  if (!is_utf8(std::filesystem::path(o.out).filename().string()))
    return "--out: the file name is not valid UTF-8, which its sidecar JSON cannot record";
  return "";
}

// bench's own views: --view and --zoom, checked. Returns an error message or "".
std::string finish_bench_views(BenchOptions& o, const Raw& raw) {
  for (const std::string& text : raw.bench_views) {
    std::string fields[4];
    std::istringstream in(text);
    int n = 0;
    while (n < 4 && std::getline(in, fields[n], ',')) ++n;
    View v;
    const auto span = span_of(fields[2]);
    if (span) v.span = *span;
    const auto iters = parse_int(fields[3], 1, kMaxIterations);
    if (n != 4 || !in.eof() || !span || !read_centre(fields[0] + "," + fields[1], v) || !iters)
      return "--view: expected X,Y,SPAN,ITERS (centre within +-1000, span " + span_range() +
             ", iterations 1..10000000), got '" + text + "'";
    v.max_iter = static_cast<unsigned>(*iters);
    o.views.push_back(std::move(v));
  }
  const bool parts = raw.zoom_from || raw.zoom_to_span || raw.zoom_steps || raw.iters;
  if (!raw.zoom) return parts ? "--from, --to, --steps and --iters belong to --zoom X,Y" : "";
  if (!raw.zoom_from || !raw.zoom_to_span || !raw.zoom_steps)
    return "--zoom: needs --from SPAN, --to SPAN and --steps N";
  ZoomPath z;
  const auto from = span_of(*raw.zoom_from), to = span_of(*raw.zoom_to_span);
  // The centre at the precision of the deeper end.
  View deepest;
  if (from && to) deepest.span = *from < *to ? *from : *to;
  if (!read_centre(*raw.zoom, deepest))
    return "--zoom: expected X,Y (two numbers within +-1000), got '" + *raw.zoom + "'";
  z.x = deepest.center_x;
  z.y = deepest.center_y;
  if (!from) return "--from: must be a span " + span_range() + ", got '" + *raw.zoom_from + "'";
  if (!to) return "--to: must be a span " + span_range() + ", got '" + *raw.zoom_to_span + "'";
  if (*from == *to) return "--zoom: --from and --to are the same span: there is no path";
  z.from = *from;
  z.to = *to;
  int steps = 0;
  if (std::string e = whole_number("--steps", raw.zoom_steps, 1, 10000, steps); !e.empty())
    return e;
  z.steps = steps;
  int iters = static_cast<int>(z.iters);
  if (std::string e = whole_number("--iters", raw.iters, 1, kMaxIterations, iters); !e.empty())
    return e;
  z.iters = static_cast<unsigned>(iters);
  o.zoom = z;
  return "";
}

std::string finish_bench(BenchOptions& o, const Raw& raw) {
  const std::string variant = raw.variant.value_or("all");
  if (variant != "all") {
    const auto v = find_variant(variant);
    if (!v) return "--variant: unknown '" + variant + "' (known: all, " + variant_names() + ")";
    o.variants = {*v};
  }
  if (std::string e = finish_format(raw, o.format); !e.empty()) return e;
  o.sin_sweep = raw.sin_sweep;
  o.present = raw.bench_present;
  o.stalls = raw.stalls;
  // Refused here, not after the timing: a CSV file is one table, and these are others.
  if (o.format == OutputFormat::Csv && (o.sin_sweep || o.present || o.stalls)) {
    std::vector<std::string> extra;
    if (o.sin_sweep) extra.push_back("--sin-sweep");
    if (o.present) extra.push_back("--present");
    if (o.stalls) extra.push_back("--stalls");
    std::string named = extra[0];
    for (std::size_t i = 1; i < extra.size(); ++i)
      named += (i + 1 == extra.size() ? " and " : ", ") + extra[i];
    return "--format csv: one table, a row per view and variant; " + named +
           (extra.size() > 1 ? " add tables of their own" : " adds a table of its own") +
           ": use --format json (or md)";
  }
  // Measured on the H100 (docs/measurements.md): CUPTI refused PC sampling's start while PM
  // sampling was enabled, and crashed where PM sampling was configured after PC sampling had been.
  if (o.stalls && raw.counters)
    return "--stalls and --counters: CUPTI's PC sampling and PM sampling cannot share one run "
           "(on the H100 the program crashed); run bench --stalls and bench --counters apart";
  const std::string order = raw.tile_order.value_or("cost");
  if (order != "cost" && order != "rows")
    return "--tile-order: expected cost or rows, got '" + order + "'";
  o.tiles_in_rows = order == "rows";
  for (auto [name, text, to] : {std::make_tuple("--width", &raw.width, &o.width),
                                std::make_tuple("--height", &raw.height, &o.height)})
    if (std::string e = whole_number(name, *text, 1, kMaxImageSize, *to); !e.empty()) return e;
  if (std::string e = finish_bench_views(o, raw); !e.empty()) return e;
  if (raw.frames && !parse_int(*raw.frames, 10, 10000))
    return "--frames: bench needs a whole number from 10 to 10000 timed frames, got '" +
           *raw.frames + "'";
  if (raw.frames) o.frames = *parse_int(*raw.frames, 10, 10000);
  if (std::string e = finish_devices(o.devices, raw); !e.empty()) return e;
  o.counters = raw.counters;
  return finish_counter_interval(raw, o.counter_interval_us);
}

std::string finish_experiment(ExperimentOptions& o, const Raw& raw, const Catalogue& catalogue) {
  o.name = raw.experiment;
  o.list = raw.experiment_list;
  if (o.name.empty() == !o.list)
    return o.list ? "experiment: --list takes no name"
                  : "experiment: needs its name (mandelpipe experiment --list names them)";
  if (!o.name.empty())
    if (std::string e = known_experiment("experiment", o.name, catalogue); !e.empty()) return e;
  if (std::string e = finish_format(raw, o.format); !e.empty()) return e;
  o.counters = raw.counters;
  return finish_counter_interval(raw, o.counter_interval_us);
}

// An argument no option took (extras are allowed so that they can be named here), as the line
// that names it and the help to see ("render --help" after render), or "".
std::string unexpected(const CLI::App& app, std::initializer_list<const CLI::App*> apps) {
  const auto extra = app.remaining(true);
  // "--" (the end of options) is not itself an argument.
  const auto it =
      std::find_if(extra.begin(), extra.end(), [](const std::string& x) { return x != "--"; });
  if (it == extra.end()) return "";
  std::string help = "--help";
  for (const CLI::App* a : apps)
    if (a != &app && a->parsed()) help = a->get_name() + " --help";
  return "unexpected argument '" + *it + "' (see " + help + ")";
}

// CLI11's own messages ("The following argument was not expected: x", "name is required"),
// said again in the style of the others: one line that names the option.
std::string parse_error_line(const CLI::ParseError& e, const std::vector<std::string>& args,
                             const CLI::App& app, std::initializer_list<const CLI::App*> apps) {
  // Repeats are counted after the parse, so this is a value that ran out: the option is last.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e))
    return args.back().substr(0, args.back().find('=')) + ": needs a value";
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    // A mistyped option (--ouput) leaves the one it meant missing: the typo is what to name.
    if (std::string line = unexpected(app, apps); !line.empty()) return line;
    for (const CLI::App* a : apps)
      for (const CLI::Option* opt : a->get_options())
        if (a->parsed() && opt->get_required() && opt->count() == 0)
          return (opt->nonpositional() ? opt->get_name() + ": required"
                                       : a->get_name() + ": needs its " + opt->get_name()) +
                 " (see " + a->get_name() + " --help)";
  }
  // Every value is read as text, so only a switch given a value it cannot take gets here.
  if (dynamic_cast<const CLI::ConversionError*>(&e))
    for (const std::string& arg : args)
      for (const CLI::App* a : apps)
        for (const CLI::Option* opt : a->get_options())
          if (opt->get_items_expected_max() == 0 && opt->nonpositional() &&
              arg.rfind(opt->get_name() + "=", 0) == 0)
            return opt->get_name() + ": a switch; it takes no value, got '" +
                   arg.substr(opt->get_name().size() + 1) + "'";
  std::string line = e.what();
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

// What CLI11 lets through that the program refuses: an unknown argument (extras are allowed so
// that they can be named here) and a value given twice (CLI11 would keep the last; which one was
// meant is unclear), the same name before and after a subcommand counting as one option.
std::string unexpected_or_repeated(const CLI::App& app,
                                   std::initializer_list<const CLI::App*> apps) {
  if (std::string line = unexpected(app, apps); !line.empty()) return line;
  std::map<std::string, std::size_t> given;
  for (const CLI::App* a : apps)
    for (const CLI::Option* opt : a->get_options())
      if (opt->get_items_expected_max() > 0 && opt->get_name() != "--view" &&
          (given[opt->get_name()] += opt->count()) > 1)
        return opt->get_name() + ": given twice";
  return "";
}

}  // namespace

ParseResult parse_command_line(const std::vector<std::string>& args, const Catalogue& catalogue) {
  Raw raw;
  CLI::App app{"mandelpipe: the Mandelbrot set, and how it keeps the GPU's pipes busy",
               "mandelpipe"};
  app.set_version_flag("--version", std::string("mandelpipe ") + kVersion);
  bool list_variants = false;
  app.add_flag("--list-variants", list_variants,
               "print the variants, one a line: the name --variant takes, the struct that names "
               "their kernels, and plain or perturbation; and exit");
  app.allow_extras();  // named by unexpected_or_repeated(), and inherited by the subcommands
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // The window's view options may come before `render` and are then its; every other option of
  // the window before a subcommand is refused.
  std::vector<std::string> carried;
  add_view_options(app, raw, false, &carried);
  add_window_options(app, raw);

  CLI::App* render = app.add_subcommand(
      "render", "render one image without a window (PNG + JSON), or a zoom sequence of them");
  add_render_options(*render, raw);
  add_view_options(*render, raw, true, nullptr);
  CLI::App* bench = app.add_subcommand(
      "bench",
      "time every variant at three fixed 3840x2160 views, or at yours (--view, --zoom), beside "
      "each view's physical limit (needs a GPU)");
  add_bench_options(*bench, raw);
  std::string views = "The fixed views, as --view takes them (X,Y,SPAN,ITERS):";
  for (const NamedView& v : kBenchViews)
    views += std::string("\n  ") + v.name + ": " + v.x + "," + v.y + "," + v.span + "," +
             std::to_string(v.iters);
  bench->footer(views);
  CLI::App* experiment = app.add_subcommand(
      "experiment",
      "run one of the seed experiments: prediction, measurement, ratio (the measurement needs a "
      "GPU; without one, the prediction alone)");
  add_experiment_options(*experiment, raw);
  app.require_subcommand(0, 1);

  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);  // CLI11 wants them reversed
  ParseResult r;
  auto fail = [&r](const std::string& e) {
    r.exit_code = 2;
    r.err = printable(e);
    return r;
  };
  try {
    app.parse(rev);
  } catch (const CLI::Success& e) {  // --help, --version
    std::ostringstream out, err;
    r.exit_code = app.exit(e, out, err);
    r.out = out.str() + err.str();
    return r;
  } catch (const CLI::ParseError& e) {
    return fail(parse_error_line(e, args, app, {&app, render, bench, experiment}));
  }
  for (const CLI::App* sub : {render, bench, experiment}) {
    if (!sub->parsed()) continue;
    for (const CLI::Option* opt : app.get_options())
      if (opt->count() > 0 && opt->nonpositional() &&
          (sub != render ||
           std::find(carried.begin(), carried.end(), opt->get_name()) == carried.end()))
        return fail(opt->get_name() + ": a window option; it does nothing with " + sub->get_name() +
                    " (" + sub->get_name() + "'s own options go after its name)");
  }
  if (std::string e = unexpected_or_repeated(app, {&app, render, bench, experiment}); !e.empty())
    return fail(e);
  // For scripts (scripts/device/ncu-pipes.sh): the one list, with what ncu's kernel names show.
  if (list_variants) {
    for (const VariantInfo& v : all_variants())
      r.out += std::string(v.name) + " " + std::string(v.type_name) + " " +
               (v.perturbation ? "perturbation" : "plain") + "\n";
    return r;
  }
  std::string e;
  if (render->parsed()) {
    RenderOptions o;
    e = finish_render(o, raw);
    r.options = std::move(o);
  } else if (bench->parsed()) {
    BenchOptions o;
    e = finish_bench(o, raw);
    r.options = std::move(o);
  } else if (experiment->parsed()) {
    ExperimentOptions o;
    e = finish_experiment(o, raw, catalogue);
    r.options = std::move(o);
  } else {
    WindowOptions o;
    e = finish_window(o, raw, catalogue);
    r.options = std::move(o);
  }
  if (!e.empty()) {
    r.options.reset();
    return fail(e);
  }
  return r;
}

std::vector<OptionName> option_names(Command command) {
  Raw raw;
  CLI::App app;
  std::vector<OptionName> names;
  switch (command) {
    case Command::Window:
      add_view_options(app, raw, false, nullptr);
      add_window_options(app, raw);
      break;
    case Command::Render:
      add_render_options(app, raw);
      add_view_options(app, raw, true, nullptr);
      break;
    case Command::Bench: add_bench_options(app, raw); break;
    case Command::Experiment: add_experiment_options(app, raw); break;
  }
  for (const CLI::Option* opt : app.get_options())
    if (opt->nonpositional() && opt->get_name() != "--help")
      names.push_back({opt->get_name(), opt->get_items_expected_max() > 0});
  return names;
}

}  // namespace mp
