// Everything the command line can ask for, one struct per command, each validated once by the
// parser: a command receives values it can use as they are.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/exr_file.h"
#include "io/kfr_location.h"
#include "io/output_format.h"
#include "io/png_stream.h"
#include "model/palette.h"
#include "model/view.h"
#include "render/present_mode.h"
#include "variants.h"

namespace mp {

enum class Command { Window, Render, Bench, Experiment };
// render computes its image in bands, so its sides go past the window's.
inline constexpr int kMaxRenderSide = 65536;

// --devices all|LIST: which GPUs render and bench use.
struct DeviceRequest {
  bool given = false;     // on the command line (else the command's default)
  bool all = true;        // every usable GPU of the host
  std::vector<int> list;  // else these, by the CUDA runtime's numbers, each once
};

// A view and how it is rendered and coloured: what the window and render share (the view options
// given before `render` are render's).
struct ViewOptions {
  View view;
  bool view_given = false;  // --center, --span or --location: else the whole set, fitted
  VariantId variant = VariantId::Fma4;
  bool iters_given = false;  // --iters: the user's own limit, which the window leaves alone
  bool force_cpu = false;
  bool pin = false;               // --pin: the variant kept at any depth (no automatic precision)
  bool no_approximation = false;  // --no-approximation: perturbation iterates every step
  // --auto-iters on|off: the limit raised while the image's edge reaches it (unset: the
  // command's default, on in the window, off for render).
  std::optional<bool> auto_iters;
  std::string palette = "ember";  // a palette of assets/palettes.json (checked)
  bool palette_given = false;
  // --density, --offset, --stripe; the window applies only those given, over its settings.
  ColourParams colour;
  struct {
    bool density = false, offset = false, stripe = false;
  } colour_given;
  // Said on stderr by the command, a line each: a size given on one side only, the other kept in
  // proportion; what a --location file gives that the view leaves out.
  std::vector<std::string> notes;
  // --location's place: the view above is it on an image of the given size; the window makes it
  // again on the area beside its panel once that is known (KF's zoom sets the height's span).
  std::optional<KfrLocation> location;
};

struct WindowOptions : ViewOptions {
  int width = 1280;
  int height = 720;
  bool window_size_given = false;  // --width/--height on the command line
  int frames = 0;                  // 0: run until closed
  std::string screenshot;
  bool vsync = true;
  PresentMode present = PresentMode::Auto;
  bool overlay = false;         // start with the pipe overlay shown
  bool overlay_ab = false;      // with frames: the overlay on and off in turns, both timed
  bool counters_ab = false;     // with frames: the hardware counters on and off in turns
  bool sass_view = false;       // ... the SASS view
  bool divergence = false;      // ... the divergence heat map
  std::string open_experiment;  // ... the experiments window, running this one (a known name)
  std::string capture_dir;      // where F12 captures and saved tables go ("" = working folder)
  bool no_counters = false;     // do not start the hardware counters
  bool stalls = false;          // PC sampling's stall reasons instead of the counters
  int counter_interval_us = 0;  // PM sampling interval in us, 10..100000; 0: the default
};

struct RenderOptions : ViewOptions {
  int width = 1920;  // a picture, not a window: full HD unless asked
  int height = 1080;
  std::string out;
  int ss = 1;               // --ss: samples a side per pixel, their colours averaged
  std::string exr;          // --exr FILE.exr: the iteration data beside the image
  bool exr_frames = false;  // --exr-frames: a zoom sequence's too, frame-NNNNN.exr
  // --exr-compression: OpenEXR's lossless compression of the EXRs.
  ExrCompression exr_compression = kDefaultExrCompression;
  std::optional<View> zoom_to;       // --zoom-to X,Y,SPAN: frames from the view to this one...
  int zoom_frames = 0;               // ...this many (--frames), into the folder --out
  bool resume = false;               // --resume: only the frames the folder lacks, same parameters
  bool fit_colours = false;          // --fit-colours: density and offset from a preview
  int png_level = kDefaultPngLevel;  // --png-level: 0 stores, 1 fastest (ISA-L), 9 smallest
  DeviceRequest devices;             // --devices (not given: every usable GPU of the host)
};

struct BenchOptions {
  std::vector<VariantId> variants;  // empty: all
  OutputFormat format = OutputFormat::Markdown;
  int frames = 10;
  bool present = false;
  bool sin_sweep = false;
  bool tiles_in_rows = false;  // --tile-order rows: the tiles in numbering order, costs unused
  // --stalls: the warp states CUPTI's PC sampling sees, a table per variant and view, from
  // frames of their own after the timed ones
  bool stalls = false;
  // Views timed instead of A, B and C, each frame as a view's first (nothing known about it):
  // --view X,Y,SPAN,ITERS (repeatable), and --zoom's path, at width x height (default 4K).
  std::vector<View> views;
  std::optional<ZoomPath> zoom;
  int width = 3840;
  int height = 2160;
  bool counters = false;  // read the GPU's pipe counters (CUPTI PM sampling) beside the model
  int counter_interval_us = 0;
  DeviceRequest devices;  // --devices (not given: the first GPU); each given is timed in turn
};

struct ExperimentOptions {
  std::string name;   // a known experiment (where the parser was given the catalogue)
  bool list = false;  // --list: the catalogue instead of a run
  OutputFormat format = OutputFormat::Markdown;
  bool counters = false;
  int counter_interval_us = 0;
};

using CommandOptions = std::variant<WindowOptions, RenderOptions, BenchOptions, ExperimentOptions>;
inline Command command_of(const CommandOptions& o) {
  return static_cast<Command>(o.index());
}

// What the options are checked against that this library does not hold: the experiments' names
// live with the lab, which the program links (empty: `experiment NAME` and --open-experiment take
// any name, for callers without the lab).
struct Catalogue {
  std::vector<std::string> experiments;
};

struct ParseResult {
  std::optional<CommandOptions> options;  // set when the program should run
  int exit_code = 0;                      // otherwise: exit with this code...
  std::string out;                        // ...after printing this to stdout (help, version)
  std::string err;                        // ...or this one line to stderr
};

// args[0] = program
ParseResult parse_command_line(const std::vector<std::string>& args,
                               const Catalogue& catalogue = {});

// Every option `command` takes ("--center", ...) as the parser knows it, and whether it takes a
// value (a switch takes none).
struct OptionName {
  std::string name;
  bool takes_value = true;
};
std::vector<OptionName> option_names(Command command);

}  // namespace mp
