// mandelpipe render: one image without a window, or a zoom sequence of them, computed in bands and
// streamed into PNG so that memory stays bounded whatever the size; plus a JSON of how each was
// made.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/view_text.h"
#include "commands/commands.h"
#include "commands/common.h"
#include "commands/sequence_folder.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "io/colour_settings.h"
#include "io/disk_space.h"
#include "io/exr_file.h"
#include "io/files.h"
#include "io/host_info.h"
#include "io/png_stream.h"
#include "io/printable.h"
#include "io/stale_temps.h"
#include "model/auto_iterations.h"
#include "model/precision_choice.h"
#include "model/variant_table.h"
#include "render/cpu_renderer.h"
#include "session/deep_renderer.h"
#include "version.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

// Computed pixels in one piece of a band: one launch (or CPU pass) and one colour pass, so this
// bounds the working memory, and keeps each launch far below the kernel's 2^32 pixels.
constexpr long long kPiecePixels = 1LL << 22;
// Computed pixels a piece's side: within the kernel's 65536 whatever the image's shape.
constexpr int kPieceSide = 16384;

// How an image is cut: bands of whole output rows, each computed in pieces side by side.
struct Plan {
  int width = 0, height = 0, ss = 1;
  int piece_columns = 0;  // output columns per piece
  int band_rows = 0;      // output rows per band

  int bands() const { return (height + band_rows - 1) / band_rows; }
  int pieces_across() const { return (width + piece_columns - 1) / piece_columns; }
  long long piece_pixels() const {
    return static_cast<long long>(piece_columns) * ss * band_rows * ss;
  }
  // The piece's data and colours, the GPU's copy of the data, and the band's output rows.
  double working_mib(bool gpu) const {
    const double data = piece_pixels() * kFloatsPerPixel * sizeof(float);
    return (data * (gpu ? 2 : 1) + piece_pixels() * 4.0 + 3.0 * width * band_rows) / (1 << 20);
  }
};

Plan plan_for(int width, int height, int ss) {
  Plan p;
  p.width = width;
  p.height = height;
  p.ss = ss;
  p.piece_columns = std::min(width, kPieceSide / ss);
  const long long rows = kPiecePixels / (static_cast<long long>(p.piece_columns) * ss * ss);
  p.band_rows = static_cast<int>(std::clamp<long long>(rows, 1, std::min(height, kPieceSide / ss)));
  return p;
}

// Progress on stderr for work that lasts: a line once kEvery has passed since the start or the
// last line. Callers report at least every kStep (a piece's rows go in runs that long), so a line
// comes within a second however heavy the view.
class Progress {
 public:
  static constexpr double kEvery = 0.75, kStep = 0.2;
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void report(const std::string& where, double fraction) {
    const double t = elapsed_s();
    if (t - last_ < kEvery) return;
    last_ = t;
    char line[160];
    std::snprintf(line, sizeof line, "mandelpipe: %s, %.0f%%, %.1f s\n", where.c_str(),
                  100 * fraction, t);
    std::cerr << line << std::flush;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double last_ = 0;
};

// Computes a piece's per-pixel data into host memory: the CUDA kernel, or the CPU reference.
class PieceRenderer {
 public:
  PieceRenderer(const DeviceChoice& dc, long long max_pixels, bool approximate)
      : device_(dc.device), approximate_(approximate) {
    if (device_) {
      gpu_ = std::make_unique<GpuRenderer>(*device_);
      scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(max_pixels) * kFloatsPerPixel);
    }
  }
  std::string description() const {
    return device_ ? "CUDA on " + device_->name
                   : "CPU reference (" + std::to_string(cpu_.threads()) + " threads)";
  }
  bool gpu() const { return device_.has_value(); }

  // The grid's pixels into host memory in runs of about Progress::kStep each, `done(fraction)`
  // after each: ranges of the one grid (pixels on the CPU, rows of 16x16 blocks on the GPU), so
  // that the pixels are those of one whole launch, bit for bit.
  void render(VariantId variant, const PixelGrid& g, unsigned max_iter, float* out,
              const std::function<void(double)>& done) {
    if (!gpu_) {
      const std::uint64_t total = static_cast<std::uint64_t>(g.width) * g.height;
      for (std::uint64_t next = 0; next < total;) {
        const CpuFrameStats s = cpu_.render_pixels(variant, g, max_iter, next, total, out, nullptr,
                                                   Progress::kStep * 1e3);
        ++launches;
        cpu.ms += s.ms;
        cpu.pixel_iters += s.pixel_iters;
        cpu.pixel_counted += s.pixel_counted;
        cpu.threads = s.threads;
        next += s.pixels;
        done(static_cast<double>(next) / total);
      }
      return;
    }
    const unsigned across = static_cast<unsigned>(blocks_across(g.width)),
                   down = static_cast<unsigned>((g.height + kBlockH - 1) / kBlockH);
    const unsigned tiles_a_row = across * kWarpsPerBlock;
    double rows_per_s = 0;
    for (unsigned r0 = 0; r0 < down;) {
      const unsigned rows =
          rows_per_s > 0
              ? std::clamp(static_cast<unsigned>(rows_per_s * Progress::kStep), 1u, down - r0)
              : std::min(std::max(down / 64, 1u), down - r0);
      const GpuFrameStats s =
          gpu_->render_tiles(variant, g, max_iter, r0 * tiles_a_row, (r0 + rows) * tiles_a_row,
                             scratch_.get(), nullptr, nullptr, OrbitSplit{});
      ++launches;
      r0 += rows;
      rows_per_s = rows / std::max(s.kernel_ms * 1e-3, 1e-6);
      gpu_stats.kernel_ms += s.kernel_ms;
      gpu_stats.sm_cycles += s.sm_cycles;
      gpu_stats.sm_cycles_mean += s.sm_cycles_mean;
      gpu_stats.sms_used = std::max(gpu_stats.sms_used, s.sms_used);
      gpu_stats.pixel_iters += s.pixel_iters;
      gpu_stats.warp_iters += s.warp_iters;
      gpu_stats.recording = gpu_stats.recording || s.recording;
      done(static_cast<double>(r0) / down);
    }
    const std::size_t floats = static_cast<std::size_t>(g.width) * g.height * kFloatsPerPixel;
    CUDA_CHECK(cudaMemcpy(out, scratch_.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
  }
  // The reference for a deep view: the one in use where it serves, else a new one (progress on
  // stderr while it takes long).
  void prepare_deep(const View& view, int width, int height, Progress& progress);
  // The pixels of `rect` of the whole width x height image by perturbation, into host memory.
  void render_deep(DeltaFormat format, const View& view, int width, int height, PixelRect rect,
                   float* out) {
    ++launches;
    const std::size_t floats = static_cast<std::size_t>(rect.width) * rect.height * kFloatsPerPixel;
    deep_stats += deep().render(format, view, width, height, rect, gpu_ ? scratch_.get() : out);
    if (gpu_)
      CUDA_CHECK(cudaMemcpy(out, scratch_.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
  }
  const DeepReference* reference() const { return deep_ ? deep_->reference().get() : nullptr; }

  void reset_stats() {
    launches = 0;
    gpu_stats = {};
    cpu = {};
    deep_stats = {};
  }

  // Summed over the launches since reset_stats().
  int launches = 0;
  GpuFrameStats gpu_stats;
  CpuFrameStats cpu;
  DeepStats deep_stats;

 private:
  DeepRenderer& deep() {
    if (!deep_) {
      deep_ = std::make_unique<DeepRenderer>(device_);
      deep_->set_approximation(approximate_);
    }
    return *deep_;
  }

  std::optional<DeviceInfo> device_;
  std::unique_ptr<GpuRenderer> gpu_;
  DeviceBuffer<float> scratch_;
  CpuRenderer cpu_;
  std::unique_ptr<DeepRenderer> deep_;
  bool approximate_ = true;
};

void PieceRenderer::prepare_deep(const View& view, int width, int height, Progress& progress) {
  if (const DeepReference* ref = reference(); ref && serves(*ref, view, width, height)) return;
  const auto ref = make_reference(view, width, height, nullptr,
                                  [&](double done) { progress.report("reference orbit", done); });
  deep().use(ref);
  const ReferenceOrbit& orbit = ref->orbit;
  if (ref->nucleus_period)
    std::cerr << "mandelpipe: the centre escapes at step " << ref->centre_escaped_at
              << ": the reference is the nucleus of a minibrot of period " << ref->nucleus_period
              << " in view\n";
  std::cerr << "mandelpipe: reference orbit: " << orbit.bits << " bits, " << orbit.z.size() - 1
            << " steps" << (orbit.escaped ? " (it escapes)" : "") << ", " << std::lround(orbit.ms)
            << " ms; approximation tables: " << ref->extended.levels() << " levels, "
            << std::lround(ref->bla_ms) << " ms\n";
}

// colourize_image over the piece's rows, split between the hardware's threads.
void colourize_parallel(const float* data, int width, int height,
                        const std::vector<std::uint8_t>& lut, const ColourParams& c,
                        std::uint8_t* rgba) {
  const int threads =
      std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(height, 1));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    const int y0 = height * t / threads, y1 = height * (t + 1) / threads;
    const std::size_t at = static_cast<std::size_t>(y0) * width;
    pool.emplace_back([=, &lut, &c] {
      colourize_image(data + at * kFloatsPerPixel, width, y1 - y0, lut, c, rgba + at * 4);
    });
  }
  for (std::thread& th : pool) th.join();
}

struct Look {
  std::vector<std::uint8_t> lut;
  ColourParams colour;
};

// The view's image into `png`, band by band: each piece computed at ss x ss samples a pixel,
// coloured, and its colours averaged into the band's rows, which then go out as PNG rows.
void render_image(const View& view, const PrecisionChoice& choice, const Plan& plan,
                  const Look& look, PieceRenderer& renderer, StreamedFile& png, Progress& progress,
                  const std::string& label, double done, double share, ExrStream* exr = nullptr) {
  const int ss = plan.ss, n = ss * ss;
  if (choice.perturbation) renderer.prepare_deep(view, plan.width * ss, plan.height * ss, progress);
  const PixelGrid whole = pixel_grid(view, plan.width * ss, plan.height * ss);
  std::vector<float> data(static_cast<std::size_t>(plan.piece_pixels()) * kFloatsPerPixel);
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(plan.piece_pixels()) * 4);
  std::vector<std::uint8_t> band(static_cast<std::size_t>(plan.width) * plan.band_rows * 3);
  // --exr: the band's iteration data (one sample a pixel), as KF's N and NF.
  std::vector<std::uint32_t> exr_n(exr ? static_cast<std::size_t>(plan.width) * plan.band_rows : 0);
  std::vector<float> exr_nf(exr_n.size());
  PngStream out(png.stream(), png.target().string(), plan.width, plan.height);
  const int bands = plan.bands();
  for (int b = 0; b < bands; ++b) {
    const int row0 = b * plan.band_rows, rows = std::min(plan.band_rows, plan.height - row0);
    for (int col0 = 0; col0 < plan.width; col0 += plan.piece_columns) {
      const int cols = std::min(plan.piece_columns, plan.width - col0);
      PixelGrid g = whole;
      g.width = cols * ss;
      g.height = rows * ss;
      // The piece's first sample where the whole image's grid has it.
      g.x0 = std::fma(static_cast<double>(col0) * ss, whole.dx, whole.x0);
      g.y0 = std::fma(static_cast<double>(row0) * ss, whole.dy, whole.y0);
      const std::string band_k = "band " + std::to_string(b + 1) + "/" + std::to_string(bands);
      const std::string where = label.empty() ? (bands > 1 ? band_k : std::string("rendering"))
                                : bands > 1   ? label + ", " + band_k
                                              : label;
      // Progress within the piece, after each run of it (PieceRenderer: about Progress::kStep).
      const auto piece_done = [&](double fraction) {
        progress.report(where, done + share * (row0 + fraction * rows) / plan.height);
      };
      if (choice.perturbation) {
        // Rows of the whole image's pixels in runs sized from the last run's rate (the first a
        // sixty-fourth of the piece): a rect is the same pixels however it is cut.
        double rows_per_s = 0;
        for (int r0 = 0; r0 < g.height;) {
          const int run_rows =
              rows_per_s > 0
                  ? std::clamp(static_cast<int>(rows_per_s * Progress::kStep), 1, g.height - r0)
                  : std::min(std::max(g.height / 64, 1), g.height - r0);
          const double t0 = progress.elapsed_s();
          renderer.render_deep(
              *choice.perturbation, view, plan.width * ss, plan.height * ss,
              {col0 * ss, row0 * ss + r0, g.width, run_rows},
              data.data() + static_cast<std::size_t>(r0) * g.width * kFloatsPerPixel);
          r0 += run_rows;
          rows_per_s = run_rows / std::max(progress.elapsed_s() - t0, 1e-6);
          piece_done(static_cast<double>(r0) / g.height);
        }
      } else {
        renderer.render(choice.variant, g, view.max_iter, data.data(), piece_done);
      }
      colourize_parallel(data.data(), g.width, g.height, look.lut, look.colour, rgba.data());
      if (exr)
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < cols; ++c) {
            const float smooth =
                data[(static_cast<std::size_t>(r) * g.width + c) * kFloatsPerPixel];
            const ExrSample e = smooth < 0 ? ExrSample{kExrInterior, 0.0f} : exr_escaped(smooth);
            const std::size_t at = static_cast<std::size_t>(r) * plan.width + col0 + c;
            exr_n[at] = e.n;
            exr_nf[at] = e.nf;
          }
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          unsigned sum[3] = {0, 0, 0};
          for (int sy = 0; sy < ss; ++sy) {
            const std::uint8_t* s =
                &rgba[(static_cast<std::size_t>(r * ss + sy) * g.width + c * ss) * 4];
            for (int sx = 0; sx < ss; ++sx, s += 4)
              for (int k = 0; k < 3; ++k) sum[k] += s[k];
          }
          std::uint8_t* d = &band[(static_cast<std::size_t>(r) * plan.width + col0 + c) * 3];
          for (int k = 0; k < 3; ++k) d[k] = static_cast<std::uint8_t>((sum[k] + n / 2) / n);
        }
    }
    for (int r = 0; r < rows; ++r)
      out.write_row(&band[static_cast<std::size_t>(r) * plan.width * 3]);
    if (exr) exr->write_rows(exr_n.data(), exr_nf.data(), rows);
  }
}

// Giter/s of `iters` steps in `ms`.
double giter_per_s(double iters, double ms) {
  return ms > 0 ? iters / (ms * 1e6) : 0.0;
}

// What rendered, for stdout and the files: the variant, or perturbation and its format.
std::string rendered_by(const PrecisionChoice& c) {
  return c.perturbation ? perturbation_name(*c.perturbation)
                        : std::string(variant_info(c.variant).name);
}

// What renders the view, by the one precision rule the window follows too: refused in one line
// where a pinned variant cannot separate the pixels, since its image would be blocks of colour.
PrecisionChoice choice_for(const View& view, const Plan& plan, const RenderOptions& o,
                           const DeviceChoice& dc) {
  std::optional<ComputeCapability> cc;
  if (dc.device) cc = ComputeCapability{dc.device->cc_major, dc.device->cc_minor};
  const int w = plan.width * plan.ss, h = plan.height * plan.ss;
  PrecisionChoice c = choose_precision(view, w, h, o.variant, o.variant, o.pin, cc);
  if (o.pin && c.exhausted && variant_info(o.variant).perturbation)
    throw ExitError(2, "--pin: " + std::string(variant_info(o.variant).name) +
                           "'s differences leave double's exponent range at span " +
                           span_text(view.span, 3) + " (pixel spacing under 2^" +
                           std::to_string(kDoubleDeltaExponent) +
                           "); without --pin it renders by perturb-x");
  if (o.pin && c.exhausted) {
    const PrecisionStatus p = float_precision(view, w, h, variant_info(o.variant).mantissa_bits);
    const PrecisionChoice free = choose_precision(view, w, h, o.variant, o.variant, false, cc);
    throw ExitError(2, "--pin: " + std::string(variant_info(o.variant).name) +
                           " cannot separate pixels at span " + span_text(view.span, 3) +
                           " (pixel spacing " + span_text(quotient(view.span, to_floatexp(w)), 3) +
                           (p.float_ulp > 0 ? " under 4 ulps" : "") +
                           "); without --pin it renders by " + rendered_by(free));
  }
  return c;
}

nlohmann::json precision_json(const PrecisionChoice& c, const PieceRenderer& r) {
  nlohmann::json j = {{"rendered_by", rendered_by(c)},
                      {"automatic", c.deeper},
                      {"why", c.why},
                      {"exhausted", c.exhausted}};
  if (const DeepReference* ref = c.perturbation ? r.reference() : nullptr)
    j["reference"] = {{"bits", ref->orbit.bits},
                      {"steps", ref->orbit.z.size() - 1},
                      {"escaped", ref->orbit.escaped},
                      {"orbit_ms", ref->orbit.ms},
                      {"table_levels", ref->extended.levels()},
                      {"table_ms", ref->bla_ms},
                      {"nucleus_period", ref->nucleus_period},
                      {"centre_escaped_at", ref->centre_escaped_at}};
  return j;
}

// One line for the temporary files that runs stopped without a chance to clean up had left, and
// this one removed: the first few by name.
void say_removed(const std::vector<fs::path>& removed) {
  if (removed.empty()) return;
  constexpr std::size_t kNamed = 3;
  std::string names;
  for (std::size_t i = 0; i < removed.size() && i < kNamed; ++i)
    names += (i ? ", " : "") + removed[i].string();
  if (removed.size() > kNamed) names += " and " + std::to_string(removed.size() - kNamed) + " more";
  std::cerr << "mandelpipe: removed " << removed.size() << " unfinished "
            << (removed.size() == 1 ? "file" : "files")
            << " that stopped runs left: " << printable(names) << "\n";
}

// The plan said before long work: the size, the bands, the memory they need.
void say_plan(const Plan& plan, bool gpu) {
  if (plan.bands() == 1) return;
  char line[200];
  std::snprintf(
      line, sizeof line,
      "mandelpipe: %dx%d%s in %d bands of %d rows: about %.0f MiB of working memory\n", plan.width,
      plan.height,
      plan.ss > 1 ? (" at " + std::to_string(plan.ss * plan.ss) + " samples a pixel").c_str() : "",
      plan.bands(), plan.band_rows, plan.working_mib(gpu));
  std::cerr << line;
}

nlohmann::json tiling_json(const Plan& plan, int launches, bool gpu) {
  return {{"bands", plan.bands()},
          {"band_rows", plan.band_rows},
          {"pieces_per_band", plan.pieces_across()},
          {"launches", launches},
          {"working_mib", std::round(plan.working_mib(gpu))},
          {"colour", "on the CPU (the colour shader's twin), averaged over ss x ss samples"}};
}

// --auto-iters on: the limit doubled while over 2% of the edge of a small preview of the view
// reaches it, or over 1% of it escapes only in the limit's last half, and doubling frees some,
// as the window raises it; the limits tried, last the one to
// render with.
std::vector<unsigned> auto_limit(const View& view, const Plan& plan, const RenderOptions& o,
                                 const DeviceChoice& dc, PieceRenderer& renderer,
                                 Progress& progress) {
  const int pw = std::clamp(plan.width / 8, std::min(plan.width, 64), 480);
  const int ph =
      std::max(1, static_cast<int>(static_cast<long long>(pw) * plan.height / plan.width));
  std::vector<float> data(static_cast<std::size_t>(pw) * ph * kFloatsPerPixel);
  AutoIterations a;
  View v = view;
  std::vector<unsigned> tried{v.max_iter};
  for (;;) {
    const PrecisionChoice c = choice_for(v, plan, o, dc);
    if (c.perturbation) {
      renderer.prepare_deep(v, pw, ph, progress);
      renderer.render_deep(*c.perturbation, v, pw, ph, {0, 0, pw, ph}, data.data());
    } else {
      renderer.render(c.variant, pixel_grid(v, pw, ph), v.max_iter, data.data(), [](double) {});
    }
    const unsigned next =
        a.next(edge_inside_share(data.data(), pw, ph), late_share(data.data(), pw, ph, v.max_iter),
               v.max_iter, kMaxIterations);
    if (next == v.max_iter) break;
    v.max_iter = next;
    tried.push_back(next);
  }
  renderer.reset_stats();
  return tried;
}

std::string limits_text(const std::vector<unsigned>& tried) {
  std::string t;
  for (unsigned n : tried) t += (t.empty() ? "" : ", ") + std::to_string(n);
  return t;
}

// The view in the EXR's header: our own attributes, and the location as KF's text under the name
// its reader looks for.
std::map<std::string, std::string> exr_attributes(const View& view, const RenderOptions& o) {
  std::map<std::string, std::string> attributes = {
      {"mandelpipe.center_x", centre_text(view.center_x, view)},
      {"mandelpipe.center_y", centre_text(view.center_y, view)},
      {"mandelpipe.span", exact_span_text(view.span)},
      {"mandelpipe.iters", std::to_string(view.max_iter)}};
  try {
    attributes["KallesFraktaler2+"] = format_kfr_view(view, o.width, o.height);
  } catch (const std::invalid_argument&) {  // deeper than KF's files reach: ours alone
  }
  return attributes;
}

std::unique_ptr<ExrStream> exr_for(const fs::path& path, const View& view, const RenderOptions& o) {
  return std::make_unique<ExrStream>(path, o.width, o.height, view.max_iter,
                                     exr_attributes(view, o));
}

// The most a render's sidecar takes: its parameters, measurements and names are a few KiB, with
// room to spare here, besides the view's coordinates, which hold any number of digits (twice
// over for what else quotes them).
std::uint64_t sidecar_bytes_at_most(const View& v) {
  constexpr std::uint64_t kFixed = 64 << 10;
  return kFixed + 2 * (centre_text(v.center_x, v).size() + centre_text(v.center_y, v).size() +
                       exact_span_text(v.span).size());
}

Look look_for(const RenderOptions& o, const Palette& palette) {
  return {build_lut(palette), o.colour};
}

int render_one(const RenderOptions& o, const DeviceChoice& dc, const Palette& palette) {
  const fs::path png = o.out;
  const fs::path json_path = sidecar_path(png);
  const Plan plan = plan_for(o.width, o.height, o.ss);
  PieceRenderer renderer(dc, plan.piece_pixels(), !o.no_approximation);
  say_plan(plan, renderer.gpu());
  Progress progress;
  View view = o.view;
  std::vector<unsigned> tried;
  if (o.auto_iters.value_or(false)) {
    tried = auto_limit(view, plan, o, dc, renderer, progress);
    view.max_iter = tried.back();
    std::cerr << "mandelpipe: automatic iterations: " << view.max_iter << " (a preview tried "
              << limits_text(tried) << ")\n";
  }
  const PrecisionChoice choice = choice_for(view, plan, o, dc);
  if (!choice.why.empty()) std::cerr << "mandelpipe: " << choice.why << "\n";

  try {
    StreamedFile image(png);
    std::unique_ptr<ExrStream> exr = o.exr.empty() ? nullptr : exr_for(o.exr, view, o);
    render_image(view, choice, plan, look_for(o, palette), renderer, image, progress, "", 0, 1,
                 exr.get());
    if (exr) exr->finish();

    nlohmann::json j;
    j["mandelpipe"] = kVersion;
    j["created"] = utc_timestamp();
    j["image"] = png.filename().string();
    j["parameters"] = {
        {"width", o.width},
        {"height", o.height},
        {"ss", o.ss},
        {"center", {centre_text(view.center_x, view), centre_text(view.center_y, view)}},
        {"span", exact_span_text(view.span)},
        {"iters", view.max_iter},
        {"auto_iters", o.auto_iters.value_or(false)},
        {"variant", variant_info(o.variant).name},
        {"pin", o.pin}};
    if (!tried.empty()) j["parameters"]["iters_tried"] = tried;
    if (!o.exr.empty()) j["exr"] = fs::path(o.exr).filename().string();
    j["parameters"].update(colour_settings_json({palette.name, o.colour}));
    j["renderer"] = renderer.description();
    j["cpu"] = cpu_model_name();
    j["tiling"] = tiling_json(plan, renderer.launches, renderer.gpu());
    // Why the CPU renders where it does (null: the GPU did).
    j["fallback"] = dc.cpu_reason.empty() ? nlohmann::json() : nlohmann::json(dc.cpu_reason);
    j["precision"] = precision_json(choice, renderer);
    j["precision_exhausted"] = choice.exhausted;
    if (choice.perturbation) {
      const DeepStats& d = renderer.deep_stats;
      j["frame"] = {{"measured",
                     {{d.gpu ? "kernel_ms" : "cpu_ms", d.ms},
                      {"pixel_iters", d.pixel_iters},
                      {"iterated", d.iterated},
                      {"skipped_by_approximation", d.pixel_iters - d.iterated},
                      {"rebases", d.rebases},
                      {"warp_iterated", d.warp_iterated},
                      {"launches", d.launches}}},
                    {"derived",
                     {{"giter_per_s_counted", giter_per_s(d.pixel_iters, d.ms)},
                      {"giter_per_s_iterated", giter_per_s(d.iterated, d.ms)}}},
                    {"model",
                     "n/a here: bench and compare time the perturbation variants' "
                     "every-step loop against its bound"}};
    } else if (renderer.gpu()) {
      j["device"] = {{"name", dc.device->name},
                     {"compute_capability", std::to_string(dc.device->cc_major) + "." +
                                                std::to_string(dc.device->cc_minor)},
                     {"sm_count", dc.device->sm_count}};
      j["frame"] = to_json(measured_row(*dc.device, choice.variant, "render", view, o.width * o.ss,
                                        o.height * o.ss, 1, renderer.gpu_stats, nullptr));
      j["frame"]["summed_over_launches"] = renderer.launches;
    } else {
      const CpuFrameStats& c = renderer.cpu;
      j["frame"] = {{"measured",
                     {{"cpu_ms", c.ms},
                      {"pixel_iters", c.pixel_iters},
                      {"pixel_iters_counted", c.pixel_counted},
                      {"threads", c.threads}}},
                    {"derived",
                     {{"giter_per_s", giter_per_s(c.pixel_iters, c.ms)},
                      {"giter_per_s_counted", giter_per_s(c.pixel_counted, c.ms)},
                      {"steps",
                       "pixel_iters and giter_per_s: of the steps run; _counted: of "
                       "the steps the pixels count (more where orbits found periodic "
                       "stop early); cpu_ms: the CPU's wall time computing them"}}},
                    {"model", "n/a: the bound model describes GPU pipes"}};
    }
    // The image last: whoever waits for it finds its sidecar already there.
    write_files_atomic({{json_path, j.dump(2) + "\n"}}, image);
  } catch (const CudaError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  std::cout << "wrote " << png.string() << " and " << json_path.string() << " (" << o.width << "x"
            << o.height << (o.ss > 1 ? ", ss " + std::to_string(o.ss) : "") << ", "
            << rendered_by(choice) << ", " << renderer.description() << ", "
            << std::lround(progress.elapsed_s() * 1000) << " ms wall, start to end)\n";
  if (!dc.cpu_reason.empty()) std::cerr << "mandelpipe: note: " << dc.cpu_reason << "\n";
  return 0;
}

// The zoom's views: spans in geometric steps (in log space, so that 1e-3 to 1e-600 works), and
// the centre moving so that the point the two views share stays put on screen (a pure zoom), or
// straight across when the spans are equal. The centre is interpolated at the bits each frame's
// span needs, the last frame's being `to`'s exactly.
std::vector<View> zoom_sequence(const View& from, const View& to, int frames) {
  std::vector<View> views;
  for (int k = 0; k + 1 < frames; ++k) {
    const double t = static_cast<double>(k) / (frames - 1);
    View v = from;
    v.span = span_between(from.span, to.span, t);
    const double u =
        from.span == to.span ? t : to_double(quotient(from.span - v.span, from.span - to.span));
    const int bits = std::max({view_bits(v), from.center_x.bits(), to.center_x.bits()});
    const BigReal fx = from.center_x.with_bits(bits), fy = from.center_y.with_bits(bits);
    v.center_x = (fx + (to.center_x - fx) * u).with_bits(view_bits(v));
    v.center_y = (fy + (to.center_y - fy) * u).with_bits(view_bits(v));
    views.push_back(std::move(v));
  }
  View last = to;
  last.max_iter = from.max_iter;
  views.push_back(std::move(last));
  return views;
}

std::string frame_name(int k) {
  char name[32];
  std::snprintf(name, sizeof name, "frame-%05d.png", k);
  return name;
}

std::string exr_name(int k) {
  return fs::path(frame_name(k)).replace_extension(".exr").string();
}

// What a sequence's frames depend on, recorded in frames.json so that --resume can check that it
// adds frames of the same sequence.
nlohmann::json sequence_parameters(const RenderOptions& o, const nlohmann::json& colour) {
  const View& to = *o.zoom_to;
  nlohmann::json p = {
      {"center", {centre_text(o.view.center_x, o.view), centre_text(o.view.center_y, o.view)}},
      {"span", exact_span_text(o.view.span)},
      {"zoom_to",
       {centre_text(to.center_x, to), centre_text(to.center_y, to), exact_span_text(to.span)}},
      {"frames", o.zoom_frames},
      {"iters", o.view.max_iter},
      {"width", o.width},
      {"height", o.height},
      {"ss", o.ss},
      {"variant", variant_info(o.variant).name},
      {"pin", o.pin},
      {"approximation", !o.no_approximation},
      {"exr_frames", o.exr_frames}};
  p.update(colour);
  return p;
}

int render_zoom(const RenderOptions& o, const DeviceChoice& dc, const Palette& palette) {
  const fs::path dir = o.out;
  const Plan plan = plan_for(o.width, o.height, o.ss);
  PieceRenderer renderer(dc, plan.piece_pixels(), !o.no_approximation);
  const std::vector<View> views = zoom_sequence(o.view, *o.zoom_to, o.zoom_frames);

  const nlohmann::json colour = colour_settings_json({palette.name, o.colour});
  nlohmann::json head;
  head["mandelpipe"] = kVersion;
  head["run_started"] = utc_timestamp();  // the run that last wrote the listing (--resume too)
  head["parameters"] = sequence_parameters(o, colour);
  head["width"] = o.width;
  head["height"] = o.height;
  head["ss"] = o.ss;
  head["renderer"] = renderer.description();
  head["cpu"] = cpu_model_name();
  head["fallback"] = dc.cpu_reason.empty() ? nlohmann::json() : nlohmann::json(dc.cpu_reason);
  head["tiling"] = tiling_json(plan, plan.bands() * plan.pieces_across(), renderer.gpu());
  // Each frame by the precision rule, as the window would render it at that depth; a line on
  // stderr where what renders changes, said once the folder is taken so a refusal stays one line.
  std::string changes;
  std::vector<nlohmann::json> entries;
  std::vector<PrecisionChoice> choices;
  for (int k = 0; k < o.zoom_frames; ++k) {
    const View& v = views[k];
    choices.push_back(choice_for(v, plan, o, dc));
    const PrecisionChoice& c = choices.back();
    nlohmann::json f = {{"image", frame_name(k)},
                        {"center", {centre_text(v.center_x, v), centre_text(v.center_y, v)}},
                        {"span", exact_span_text(v.span)},
                        {"iters", v.max_iter},
                        {"variant", variant_info(o.variant).name},
                        {"rendered_by", rendered_by(c)}};
    if (o.exr_frames) f["exr"] = exr_name(k);
    f.update(colour);
    f["precision_exhausted"] = c.exhausted;
    if (k == 0 ? !c.why.empty() : rendered_by(c) != rendered_by(choices[k - 1]))
      changes += "mandelpipe: from " + frame_name(k) + " on, " +
                 (c.why.empty() ? rendered_by(c) + " holds" : c.why) + "\n";
    entries.push_back(std::move(f));
  }

  // The most the frames still to render may take, beside frames.json's old and new text while
  // it is replaced; its coordinates' digits grow towards the deeper end, first or last.
  auto check_room_for = [&](int frames) {
    nlohmann::json listing = head;
    listing["frames"] = entries;
    constexpr std::uint64_t kFrameNumber = 32;  // "frame": N, in each entry
    const std::uint64_t listing_bytes =
        2 * (listing.dump(2).size() + kFrameNumber * entries.size());
    std::uint64_t frame = png_bytes_at_most(o.width, o.height);
    if (o.exr_frames)
      frame += std::max(exr_bytes_at_most(o.width, o.height, exr_attributes(views.front(), o)),
                        exr_bytes_at_most(o.width, o.height, exr_attributes(views.back(), o)));
    check_room({{dir / frame_name(0), frame * frames + listing_bytes}},
               std::to_string(frames) + " frames into " + dir.string());
  };
  std::optional<SequenceFolder> folder;
  try {
    // A new sequence is checked before its folder is made; a resumed one once the frames it
    // keeps are known.
    if (!o.resume) check_room_for(o.zoom_frames);
    folder.emplace(dir, head, o.resume);
    if (o.resume) check_room_for(o.zoom_frames - folder->kept());
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  say_removed(folder->stale_removed());
  std::cerr << changes;
  say_plan(plan, renderer.gpu());
  const int missing = o.zoom_frames - folder->kept();
  if (o.resume)
    std::cerr << "mandelpipe: --resume: " << folder->kept() << " of " << o.zoom_frames
              << " frames already whole in " << dir.string() << ", rendering " << missing << "\n";
  const Look look = look_for(o, palette);
  Progress progress;
  try {
    int rendered = 0;
    for (int k = 0; k < o.zoom_frames; ++k) {
      if (folder->has(k)) continue;
      StreamedFile image(dir / frame_name(k));
      const std::string label =
          "frame " + std::to_string(k + 1) + "/" + std::to_string(o.zoom_frames);
      std::unique_ptr<ExrStream> exr =
          o.exr_frames ? exr_for(dir / exr_name(k), views[k], o) : nullptr;
      render_image(views[k], choices[k], plan, look, renderer, image, progress, label,
                   static_cast<double>(rendered) / missing, 1.0 / missing, exr.get());
      if (exr) exr->finish();
      // The frame in place first, then frames.json listing it: the listing never names a frame
      // that is not there.
      folder->commit_frame(k, entries[k], image);
      ++rendered;
    }
  } catch (const CudaError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  std::cout << "wrote " << missing << " frames and frames.json to " << dir.string() << " ("
            << o.width << "x" << o.height << ", " << rendered_by(choices.front())
            << (rendered_by(choices.front()) != rendered_by(choices.back())
                    ? " to " + rendered_by(choices.back())
                    : "")
            << ", " << renderer.description() << ", " << std::lround(progress.elapsed_s() * 1000)
            << " ms)\n";
  if (!dc.cpu_reason.empty()) std::cerr << "mandelpipe: note: " << dc.cpu_reason << "\n";
  return 0;
}

}  // namespace

int run_render(const RenderOptions& o) {
  if (!o.size_note.empty()) std::cerr << "mandelpipe: " << o.size_note << "\n";
  // Held until the image and its sidecar are in place: another run to the same output is refused.
  std::optional<OutputLock> lock;
  if (!o.zoom_to) {
    try {
      check_writable(o.out);
      check_writable(sidecar_path(o.out));
      if (!o.exr.empty()) check_writable(o.exr);
      lock.emplace(o.out);
    } catch (const std::exception& e) {
      throw ExitError(2, e.what());
    }
    std::vector<fs::path> outputs = {o.out, sidecar_path(o.out)};
    if (!o.exr.empty()) outputs.emplace_back(o.exr);
    say_removed(remove_stale_temps(outputs));
    std::vector<Need> needs = {{o.out, png_bytes_at_most(o.width, o.height)},
                               {sidecar_path(o.out), sidecar_bytes_at_most(o.view)}};
    if (!o.exr.empty())
      needs.push_back({o.exr, exr_bytes_at_most(o.width, o.height, exr_attributes(o.view, o))});
    try {
      check_room(needs,
                 o.out + (o.exr.empty() ? " and its sidecar" : ", its sidecar and " + o.exr));
    } catch (const std::exception& e) {
      throw ExitError(2, e.what());
    }
  }
  const Palette palette = find_palette(o.palette);
  const DeviceChoice dc = choose_device(o.force_cpu);
  return o.zoom_to ? render_zoom(o, dc, palette) : render_one(o, dc, palette);
}

}  // namespace mp
