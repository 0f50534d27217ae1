// Everything the command line can ask for, validated.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

struct Options {
  Command command = Command::Window;
  View view;
  VariantId variant = VariantId::Fma4;
  int width = 1280;
  int height = 720;
  bool window_size_given = false;  // --width/--height on the command line
  bool force_cpu = false;
  bool pin = false;               // --pin: the variant kept at any depth (no automatic precision)
  bool no_approximation = false;  // --no-approximation: perturbation iterates every step
  // --auto-iters on|off: the limit raised while the image's edge reaches it (unset: the
  // command's default, on in the window, off for render).
  std::optional<bool> auto_iters;
  bool iters_given = false;  // --iters: the user's own limit, which the window leaves alone
  std::string palette = "ember";
  bool palette_given = false;

  // window
  int frames = 0;  // 0: run until closed
  std::string screenshot;
  bool vsync = true;
  PresentMode present = PresentMode::Auto;
  bool overlay = false;         // start with the pipe overlay shown
  bool overlay_ab = false;      // with frames: the overlay on and off in turns, both timed
  bool counters_ab = false;     // with frames: the hardware counters on and off in turns
  bool sass_view = false;       // ... the SASS view
  bool divergence = false;      // ... the divergence heat map
  std::string open_experiment;  // ... the experiments window, running this one
  std::string capture_dir;      // where F12 captures and saved tables go ("" = working folder)
  bool no_counters = false;     // do not start the hardware counters

  // render
  std::string out;
  // render and window: --density, --offset, --stripe; the window applies only those given, over
  // its settings.
  ColourParams colour;
  struct {
    bool density = false, offset = false, stripe = false;
  } colour_given;
  int ss = 1;                        // --ss: samples a side per pixel, their colours averaged
  std::string exr;                   // --exr FILE.exr: the iteration data beside the image
  bool exr_frames = false;           // --exr-frames: a zoom sequence's too, frame-NNNNN.exr
  std::optional<View> zoom_to;       // --zoom-to X,Y,SPAN: frames from the view to this one...
  int zoom_frames = 0;               // ...this many (--frames), into the folder --out
  bool resume = false;               // --resume: only the frames the folder lacks, same parameters
  int png_level = kDefaultPngLevel;  // --png-level: zlib's level for the PNGs, 0..9

  // bench
  std::vector<VariantId> bench_variants;  // empty: all
  OutputFormat format = OutputFormat::Markdown;
  int bench_frames = 10;
  bool bench_present = false;
  bool bench_sin_sweep = false;
  bool tiles_in_rows = false;  // --tile-order rows: the tiles in numbering order, costs unused
  // Views timed instead of A, B and C, each frame as a view's first (nothing known about it):
  // --view X,Y,SPAN,ITERS (repeatable), and --zoom's path, at width x height (default 4K).
  std::vector<View> bench_views;
  std::optional<ZoomPath> bench_zoom;

  // experiment (the name is checked against the catalogue by the command)
  std::string experiment;
  bool experiment_list = false;  // --list: the catalogue's names instead of a run

  // render and bench: --devices (not given: render takes all, bench the first)
  DeviceRequest devices;

  // bench and experiment: read the GPU's pipe counters (CUPTI PM sampling) beside the model
  bool counters = false;
  // window, bench and experiment: PM sampling interval in us, 10..100000; 0: the command's default
  int counter_interval_us = 0;
};

struct ParseResult {
  std::optional<Options> options;  // set when the program should run
  int exit_code = 0;               // otherwise: exit with this code...
  std::string out;                 // ...after printing this to stdout (help, version)
  std::string err;                 // ...or this one line to stderr
};

ParseResult parse_command_line(const std::vector<std::string>& args);  // args[0] = program

}  // namespace mp
