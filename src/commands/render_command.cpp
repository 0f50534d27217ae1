// mandelpipe render: one image without a window, or a zoom sequence of them, computed in bands on
// every GPU of the host (or of many hosts, as MPI's ranks) and streamed into PNG so that memory
// stays bounded whatever the size; plus a JSON of how each was made.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include <signal.h>
#include <sys/resource.h>

#include "cli/view_text.h"
#include "commands/auto_limits.h"
#include "commands/band_pipeline.h"
#include "commands/commands.h"
#include "commands/common.h"
#include "commands/frame_order.h"
#include "commands/mpi_ranks.h"
#include "commands/piece_renderer.h"
#include "commands/render_ranks.h"
#include "commands/sequence_folder.h"
#include "commands/work_pool.h"
#include "io/colour_settings.h"
#include "io/disk_space.h"
#include "io/exr_file.h"
#include "io/files.h"
#include "io/host_info.h"
#include "io/png_stream.h"
#include "io/printable.h"
#include "io/sidecar_owner.h"
#include "io/stale_temps.h"
#include "model/auto_iterations.h"
#include "model/precision_choice.h"
#include "model/variant_table.h"
#include "session/device.h"
#include "session/frame_report.h"
#include "version.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

long long pixels_of(int width, int height, int ss) {
  return static_cast<long long>(width) * height * ss * ss;
}

// Every pixel's count is the limit (none escaped): the steps counted are the pixels times it.
bool every_pixel_at_limit(const ImageRecord& r, long long pixels, unsigned max_iter) {
  const unsigned long long counted = r.gpu.pixel_iters + r.cpu.pixel_iters + r.deep.pixel_iters;
  return pixels > 0 && counted >= static_cast<unsigned long long>(pixels) * max_iter;
}

// Why the CPU renders where it does (null: the GPU did).
nlohmann::json fallback_json(const DeviceChoice& dc) {
  return dc.cpu_reason.empty() ? nlohmann::json() : nlohmann::json(dc.cpu_reason);
}

// What rendered, for stdout and the files: the variant, or perturbation and its format.
std::string rendered_by(const PrecisionChoice& c) {
  return c.perturbation ? perturbation_name(*c.perturbation)
                        : std::string(variant_info(c.variant).name);
}

// What `why` leaves to the front end: how to keep the user's own variant.
std::string pin_hint(const PrecisionChoice& c) {
  return c.deeper ? "; --pin keeps " + std::string(variant_info(c.own).name) : "";
}

// What renders the view, by the one precision rule the window follows too: refused in one line
// where a pinned variant cannot separate the pixels, since its image would be blocks of colour.
PrecisionChoice choice_for(const View& view, const Plan& plan, const RenderOptions& o,
                           const DeviceChoice& dc) {
  const std::optional<ComputeCapability> cc = device_facts(dc.device).cc;
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

// choice_for as the previews of --auto-iters take it.
LimitPreview::Choose choose_for(const Plan& plan, const RenderOptions& o, const DeviceChoice& dc) {
  return [&plan, &o, &dc](const View& v) { return choice_for(v, plan, o, dc); };
}

nlohmann::json precision_json(const PrecisionChoice& c, const DeepReference* ref) {
  nlohmann::json j = {{"rendered_by", rendered_by(c)},
                      {"automatic", c.deeper},
                      {"why", c.why},
                      {"exhausted", c.exhausted}};
  if (ref && c.perturbation)
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

// The plan said before long work: the size, the bands, the memory they need, the threads that
// colour and compress them.
void say_plan(const Plan& plan, const BandPipeline& pipeline, bool exr) {
  if (plan.bands() == 1) return;
  char line[240];
  std::snprintf(
      line, sizeof line,
      "mandelpipe: %dx%d%s in %d bands of %d rows: about %.0f MiB of working memory (%d band "
      "buffers, colour and compression on %d threads)\n",
      plan.width, plan.height,
      plan.ss > 1 ? (" at " + std::to_string(plan.ss * plan.ss) + " samples a pixel").c_str() : "",
      plan.bands(), plan.band_rows, pipeline.working_mib(exr), pipeline.band_buffers(exr),
      pipeline.threads());
  std::cerr << line;
}

nlohmann::json tiling_json(const Plan& plan, const BandPipeline& pipeline, int launches,
                           const RenderOptions& o, bool exr) {
  nlohmann::json j = {
      {"bands", plan.bands()},
      {"band_rows", plan.band_rows},
      {"pieces_per_band", plan.pieces_across()},
      {"launches", launches},
      {"band_buffers", pipeline.band_buffers(exr)},
      {"working_mib", std::round(pipeline.working_mib(exr))},
      {"encoder_threads", pipeline.threads()},
      {"png_level", o.png_level},
      {"png_encoder", pipeline.encoder_description()},
      {"png_block_rows", png_block_rows(plan.width)},
      {"colour",
       pipeline.colours_on_gpu()
           ? "on the GPU that rendered each band (render's colour kernel, the formula of "
             "cuda/host_device/colour.h), averaged over ss x ss samples there; the pool "
             "filters and deflates the RGB rows"
           : "on the CPU by the pool (the formula of cuda/host_device/colour.h), averaged "
             "over ss x ss samples, then filtered and deflated"}};
  if (exr) j["exr_compression"] = exr_compression_name(o.exr_compression);
  return j;
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"compute_capability", device_facts(d).compute_capability()},
          {"sm_count", d.sm_count}};
}

// The pipeline's test hooks (band_pipeline.h) from the environment: MANDELPIPE_TEST_CPU_WORKERS=N
// (CPU workers, 1..8) and MANDELPIPE_TEST_FAIL_WORKER=W:B (worker W fails as a GPU does once it
// has rendered B bands).
PipelineHooks hooks_from_environment() {
  PipelineHooks h;
  if (const char* n = std::getenv("MANDELPIPE_TEST_CPU_WORKERS"))
    h.cpu_workers = std::clamp(std::atoi(n), 1, 8);
  if (const char* f = std::getenv("MANDELPIPE_TEST_FAIL_WORKER"))
    if (std::sscanf(f, "%d:%d", &h.fail_worker, &h.fail_after) != 2) h.fail_worker = -1;
  return h;
}

// Each worker over the run: what it rendered, its time, and whether it failed.
nlohmann::json workers_json(const BandPipeline& pipeline) {
  nlohmann::json all = nlohmann::json::array();
  for (const WorkerReport& w : pipeline.workers()) {
    nlohmann::json j = {{"worker", w.name}, {"bands", w.bands}, {"compute_ms", w.compute_ms}};
    if (w.device) j["index"] = w.device->index;
    if (!w.failed.empty()) j["failed"] = w.failed;
    if (!w.redone.empty()) j["redone_by_others"] = w.redone;
    all.push_back(std::move(j));
  }
  return all;
}

// Which worker rendered which of an image's bands: {"GPU 0 (NAME)": [0, 2, ...], ...}.
nlohmann::json shares_json(const BandPipeline& pipeline, const ImageRecord& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [w, share] : r.by_worker) {
    std::vector<int> bands = share.bands;
    std::sort(bands.begin(), bands.end());
    j[pipeline.workers()[static_cast<std::size_t>(w)].name] = bands;
  }
  return j;
}

// The workers that failed, for stdout: "" where none did.
std::string failures_text(const BandPipeline& pipeline) {
  int failed = 0;
  for (const WorkerReport& w : pipeline.workers()) failed += !w.failed.empty();
  if (!failed) return "";
  return "; " + std::to_string(failed) + " of " + std::to_string(pipeline.workers().size()) +
         " workers failed and the others rendered their bands (stderr says which)";
}

// What an image took, measured by the pipeline's clocks and the GPU's events.
nlohmann::json timing_json(const ImageRecord& r, bool gpu) {
  nlohmann::json j = {{"wall_ms", r.wall_ms},
                      {gpu ? "gpu_kernel_ms" : "cpu_render_ms", r.compute_ms()},
                      {"render_ms", r.render_ms},
                      {"colour_on", gpu ? "GPU" : "CPU"},
                      {"colour_encode_ms", r.encode_ms},
                      {"write_ms", r.write_ms}};
  if (gpu) j["gpu_colour_ms"] = r.colour_ms;
  return j;
}

using Clock = std::chrono::steady_clock;

// The devices a render uses, and when they were found and their contexts made (where made ahead
// of the workers, else as they were found).
struct DevicesFound {
  DeviceChoice choice;
  Clock::time_point probed, contexts;
};
struct Startup {
  Clock::time_point probed, contexts;
};

// The run's steps in ms after the process started (process_age_ms): the devices found, the
// pipeline entered and its pool made, each worker's renderer made, the first band started and
// rendered, and `end` (the files written, or the run's end).
nlohmann::json startup_json(const BandPipeline& pipeline, const Startup& probed,
                            const ImageRecord* first, Clock::time_point end) {
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerReport& w : pipeline.workers())
    workers.push_back(w.ready == Clock::time_point{} ? nlohmann::json()
                                                     : nlohmann::json(process_age_ms(w.ready)));
  // A step that did not happen (a --resume with no frame left renders nothing) is null.
  const auto at = [](Clock::time_point t) {
    return t == Clock::time_point{} ? nlohmann::json() : nlohmann::json(process_age_ms(t));
  };
  nlohmann::json j = {{"devices_probed_ms", at(probed.probed)},
                      {"contexts_ready_ms", at(probed.contexts)},
                      {"pipeline_entered_ms", at(pipeline.run_entered())},
                      {"pool_ready_ms", at(pipeline.buffers_ready())},
                      {"workers_ready_ms", workers}};
  if (first && first->started != Clock::time_point{})
    j["first_band_started_ms"] = process_age_ms(first->started);
  if (first && first->first_rendered != Clock::time_point{})
    j["first_band_rendered_ms"] = process_age_ms(first->first_rendered);
  j["ended_ms"] = process_age_ms(end);
  if (pipeline.contexts_released() != Clock::time_point{})
    j["contexts_released_ms"] = process_age_ms(pipeline.contexts_released());
  j["measured"] =
      "ms after the process started (exec), by the steady clock; the start itself from "
      "/proc/self/stat in the kernel's ticks (10 ms), an offset every figure shares. "
      "devices_probed: the CUDA devices found (the driver's start); contexts_ready: their "
      "contexts made ahead of the workers (where one process renders; else as devices_probed); "
      "both on a thread of their own from the process's start, beside MPI's start and the "
      "checks; pipeline_entered: the render's pipeline begun; pool_ready: its encoding threads "
      "made; workers_ready: each "
      "worker's renderer made (its stream and buffers, its GPU's context where not made ahead); "
      "first_band_started and "
      "first_band_rendered: the first band of this run; ended: its files written; "
      "contexts_released: the GPUs' contexts let go once every band was rendered, while the "
      "last were compressed (where that came before this record was written)";
  return j;
}

// What each of timing_json's figures times: once in a sidecar or frames.json.
std::string timing_note(bool gpu) {
  return std::string("wall_ms: from the image's first band's start to its files written whole; ") +
         (gpu ? "gpu_kernel_ms: CUDA events around its launches"
              : "cpu_render_ms: the CPU reference's wall time") +
         "; render_ms: the render worker's wall time on its bands (launches, colouring on the "
         "GPU, copies); colour_on: where the pixels were coloured; gpu_colour_ms (colour_on "
         "GPU): the colour kernel's time, CUDA events, within render_ms; colour_encode_ms: the "
         "pool's work (colouring where colour_on is CPU, PNG filtering and compression), each "
         "task's time summed over the pool's threads (overlapping the render); write_ms: its "
         "blocks and EXR rows written";
}

// The most memory the process has held so far (the kernel's count of its resident pages).
double peak_rss_mib() {
  rusage u{};
  return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss / 1024.0 : 0.0;
}

// The run's figures in a few words for stdout: the GPU's (or the CPU reference's) share of the
// wall time `wall_ms` (`wall_what` says from when to when: a still's is its image's, after any
// preview), the colouring's (on the GPU) and compression's time, the peak memory.
std::string run_summary(double wall_ms, const char* wall_what, double compute_ms, double colour_ms,
                        double encode_ms, bool gpu, int threads) {
  char colour[80];
  if (gpu)
    std::snprintf(colour, sizeof colour, "colour on the GPU %.0f ms, PNG", colour_ms);
  else
    std::snprintf(colour, sizeof colour, "colour and PNG");
  char text[400];
  std::snprintf(text, sizeof text,
                "%s %.0f ms (%.0f%% of the %.0f ms %s), %s %.1f s over %d thread%s, peak memory "
                "%.0f MiB",
                gpu ? "GPU kernels" : "CPU reference", compute_ms,
                wall_ms > 0 ? 100 * compute_ms / wall_ms : 0.0, wall_ms, wall_what, colour,
                encode_ms / 1000, threads, threads == 1 ? "" : "s", peak_rss_mib());
  return text;
}

// The figures stdout sums over the ranks: the GPU's (or the CPU's) time, the colour kernel's,
// the pool's.
struct RunTotals {
  double compute_ms = 0, colour_ms = 0, encode_ms = 0;
  void add(const ImageRecord& r) {
    compute_ms += r.compute_ms();
    colour_ms += r.colour_ms;
    encode_ms += r.encode_ms;
  }
  void add(const nlohmann::json& rank, bool gpu) {
    compute_ms += rank.value(gpu ? "gpu_kernel_ms" : "cpu_render_ms", 0.0);
    colour_ms += rank.value("gpu_colour_ms", 0.0);
    encode_ms += rank.value("colour_encode_ms", 0.0);
  }
};

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

// An error of a step only rank 0 takes, which every rank learns of: rank 0 ends with it and says
// it, the others end with its code and say nothing.
class AgreedExit : public ExitError {
 public:
  using ExitError::ExitError;
};

// Rank 0's `step` (the checks and the folder, which only it makes): its result on every rank,
// or its error, with which every rank ends.
std::string on_root(const MpiRanks& ranks, const std::function<std::string()>& step) {
  std::string outcome;
  if (ranks.root()) {
    try {
      outcome = "K" + step();
    } catch (const ExitError& e) {
      if (ranks.size() == 1) throw AgreedExit(e.code(), e.what());
      // Said before the others hear of it: as they end, mpirun ends every rank.
      std::cerr << "mandelpipe: " + printable(e.what()) + "\n" << std::flush;
      ranks.broadcast("E" + std::to_string(e.code()));
      throw AgreedExit(e.code(), "");
    }
  }
  outcome = ranks.broadcast(outcome);
  if (outcome[0] == 'E') throw AgreedExit(std::stoi(outcome.substr(1)), "");
  return outcome.substr(1);
}

// A rank's part of the run, for rank 0's sidecar or frames.json.
nlohmann::json rank_summary(const MpiRanks& ranks, const BandPipeline& pipeline,
                            const std::vector<ImageRecord>& records, const Startup& probed) {
  RunTotals t;
  for (const ImageRecord& r : records) t.add(r);
  return {{"rank", ranks.rank()},
          {"host", ranks.host()},
          {"cpu", cpu_model_name()},
          {"renderer", pipeline.renderer_description()},
          {"workers", workers_json(pipeline)},
          {pipeline.gpu() ? "gpu_kernel_ms" : "cpu_render_ms", t.compute_ms},
          {"gpu_colour_ms", t.colour_ms},
          {"colour_encode_ms", t.encode_ms},
          {"encoder_threads", pipeline.threads()},
          {"host_cores", std::thread::hardware_concurrency()},
          {"startup", startup_json(pipeline, probed, records.empty() ? nullptr : &records.front(),
                                   Clock::now())}};
}

// The other ranks' summaries (kTagSummary), which rank 0 waits for, and `own` first; frames
// they report on the way (kTagFrame) go to `frame`.
nlohmann::json gather_summaries(const MpiRanks& ranks, nlohmann::json own,
                                const std::function<void(const nlohmann::json&)>& frame = {}) {
  std::vector<nlohmann::json> all = {std::move(own)};
  while (static_cast<int>(all.size()) < ranks.size()) {
    const MpiRanks::Message m = ranks.receive(MpiRanks::kAnyRank, MpiRanks::kAnyTag);
    if (m.tag == kTagFrame && frame) frame(nlohmann::json::parse(m.bytes));
    if (m.tag == kTagSummary) all.push_back(nlohmann::json::parse(m.bytes));
  }
  std::sort(all.begin(), all.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.at("rank").get<int>() < b.at("rank").get<int>();
  });
  return all;
}

// The test hook MANDELPIPE_TEST_KILL_RANK=R:F: rank R dies (SIGKILL) once it has written F
// frames, as a rank whose host goes down; R:F:part, with frame F+1 whole in its temporary file
// but not yet renamed into place, as a power cut can leave it.
struct KillHook {
  int rank = -1, after = 0;
  bool before_rename = false;
};
KillHook kill_hook_from_environment() {
  KillHook h;
  char part[8] = {};
  if (const char* v = std::getenv("MANDELPIPE_TEST_KILL_RANK")) {
    const int n = std::sscanf(v, "%d:%d:%4s", &h.rank, &h.after, part);
    if (n < 2) h.rank = -1;
    h.before_rename = n == 3 && std::string(part) == "part";
  }
  return h;
}

int render_one(const RenderOptions& o, const DeviceChoice& dc, const Palette& palette,
               const MpiRanks& ranks, const Startup& probed) {
  const fs::path png = o.out;
  const fs::path json_path = sidecar_path(png);
  const Plan plan = plan_for(o.width, o.height, o.ss);
  Progress progress(!ranks.root());
  View view = o.view;
  std::vector<unsigned> tried;
  // The minibrot whose period the limit's floor went by (0: none), for the sidecar.
  unsigned limit_period = 0;
  bool limit_period_in_view = false;
  // Rank 0's preview sets the limit and the colours of every rank.
  std::optional<LimitPreview> preview;
  const auto preview_made = [&]() -> LimitPreview& {
    if (!preview) preview.emplace(plan, dc.device, !o.no_approximation, choose_for(plan, o, dc));
    return *preview;
  };
  if (o.auto_iters.value_or(false)) {
    if (ranks.root()) {
      AutoIterations a;
      tried = preview_made().limits(view, a, progress);
    }
    tried = nlohmann::json::parse(ranks.broadcast(nlohmann::json(tried).dump()))
                .get<std::vector<unsigned>>();
    view.max_iter = tried.back();
    if (ranks.root()) {
      std::cerr << "mandelpipe: automatic iterations: " << view.max_iter << " (a preview tried "
                << limits_text(tried);
      const unsigned p = preview_made().period();
      const bool in_view = preview_made().period_in_view();
      if (p && floor_from_period(view.span, p, in_view)) {
        limit_period = p;
        limit_period_in_view = in_view;
        std::cerr << "; with " << minibrot_words(p, in_view)
                  << ", an edge mostly at the limit doubles it while under "
                  << limit_floor(view.span, p, in_view) << ", "
                  << (in_view ? kFloorPeriods : kNearFloorPeriods) << " times the period";
      }
      std::cerr << ")\n";
    }
  }
  ColourParams colour = o.colour;
  if (o.fit_colours) {
    nlohmann::json fitted;  // null: the preview's counts do not differ
    if (ranks.root())
      if (const std::optional<FittedColours> f = preview_made().colours(view, colour, progress))
        fitted = {{"density", f->colour.density},
                  {"offset", f->colour.offset},
                  {"lowest", f->lowest},
                  {"highest", f->highest}};
    fitted = nlohmann::json::parse(ranks.broadcast(fitted.dump()));
    if (!fitted.is_null()) {
      colour.density = fitted["density"].get<float>();
      colour.offset = fitted["offset"].get<float>();
    }
    if (ranks.root()) {
      char line[240];
      if (fitted.is_null())
        std::snprintf(line, sizeof line,
                      "mandelpipe: colours not fitted: the preview's counts do not differ "
                      "(density %g, offset %g kept)\n",
                      colour.density, colour.offset);
      else
        std::snprintf(line, sizeof line,
                      "mandelpipe: colours fitted to a preview: its counts, about %.0f to %.0f, "
                      "span two palette cycles (density %.6g, offset %.6g)\n",
                      fitted["lowest"].get<double>() + 2, fitted["highest"].get<double>() + 2,
                      colour.density, colour.offset);
      std::cerr << line;
    }
  }
  // The preview's reference serves the render (the same view, made for the whole image).
  std::shared_ptr<const DeepReference> previewed = preview ? preview->reference() : nullptr;
  preview.reset();  // its device memory, before the pipeline's
  BandPipeline pipeline(plan, Look{build_lut(palette), colour}, PipelineOutput::kStill, o.png_level,
                        dc.devices, !o.no_approximation, hooks_from_environment());
  pipeline.start_from(std::move(previewed));
  pipeline.release_devices_after_run();  // the process's last CUDA work
  if (ranks.root()) say_plan(plan, pipeline, !o.exr.empty());
  const PrecisionChoice choice = choice_for(view, plan, o, dc);
  if (!choice.why.empty() && ranks.root())
    std::cerr << "mandelpipe: " << choice.why << pin_hint(choice) << "\n";
  RankExchange exchange(ranks);

  PipelineImage image{view, choice, png, o.exr, {}, ""};
  if (!o.exr.empty()) image.exr_attributes = exr_attributes(view, o);
  image.exr_compression = o.exr_compression;
  ImageRecord record;
  nlohmann::json ranks_json;  // every rank's part, where several render
  std::vector<ImageRecord> records;
  try {
    records = pipeline.run(
        {image}, progress,
        [&](int, StreamedFile& file, const ImageRecord& r) {
          record = r;
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
              {"pin", o.pin},
              {"png_level", o.png_level}};
          if (!tried.empty()) j["parameters"]["iters_tried"] = tried;
          if (limit_period)
            j["parameters"]["iters_minibrot"] = {{"period", limit_period},
                                                 {"in_view", limit_period_in_view}};
          if (!o.exr.empty()) j["exr"] = fs::path(o.exr).filename().string();
          j["parameters"].update(colour_settings_json({palette.name, colour}));
          if (o.fit_colours) j["parameters"]["fit_colours"] = true;
          j["renderer"] = pipeline.renderer_description();
          j["cpu"] = cpu_model_name();
          j["tiling"] = tiling_json(plan, pipeline, r.launches, o, !o.exr.empty());
          j["fallback"] = fallback_json(dc);
          j["precision"] = precision_json(choice, r.reference.get());
          j["precision_exhausted"] = choice.exhausted;
          j["timing"] = timing_json(r, pipeline.gpu());
          j["timing"]["peak_rss_mib"] = std::round(peak_rss_mib());
          j["timing"]["measured"] =
              timing_note(pipeline.gpu()) + "; peak_rss_mib: the process's most resident memory";
          j["startup"] = startup_json(pipeline, probed, &r, Clock::now());
          // The frame's figures, from its report: measured, derived, the model's where it has
          // one (a plain frame on the GPU, with the first GPU's rates where several rendered).
          const FrameOf of{view,           choice.variant,
                           o.width * o.ss, o.height * o.ss,
                           false,          choice.perturbation.has_value()};
          if (pipeline.gpu() && !choice.perturbation) j["device"] = device_json(*dc.device);
          j["frame"] = frame_json(
              choice.perturbation ? deep_frame_report(of, r.deep)
              : pipeline.gpu()    ? gpu_frame_report(of, r.gpu, device_facts(dc.device), nullptr)
                                  : cpu_frame_report(of, r.cpu));
          if (pipeline.gpu() && !choice.perturbation) {
            j["frame"]["summed_over_launches"] = r.launches;
            if (dc.devices.size() > 1)
              j["frame"]["summed_over_gpus"] = "the bands of every GPU, with the first's model";
          }
          // Every worker: the bands of this image it rendered, with its launches' figures by the
          // model of its own GPU.
          j["workers"] = workers_json(pipeline);
          for (const auto& [w, share] : r.by_worker) {
            const std::optional<DeviceInfo>& d =
                pipeline.workers()[static_cast<std::size_t>(w)].device;
            if (d && !choice.perturbation && dc.devices.size() > 1)
              j["workers"][static_cast<std::size_t>(w)]["frame"] =
                  frame_json(gpu_frame_report(of, share.gpu, device_facts(d), nullptr));
          }
          j["rendered_on"] = shares_json(pipeline, r);
          if (ranks.size() > 1) {
            ranks_json = gather_summaries(ranks, rank_summary(ranks, pipeline, {r}, probed));
            j["ranks"] = ranks_json;
            j["rendered_on"] = {{"rank 0", j["rendered_on"]},
                                {"bands", "band b by rank b % " + std::to_string(ranks.size())}};
          }
          // The image last: whoever waits for it finds its sidecar already there.
          write_files_atomic({{json_path, j.dump(2) + "\n"}}, file);
        },
        ranks.size() > 1 ? &exchange : nullptr);
  } catch (const CudaError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  if (!ranks.root()) {
    ranks.send(0, kTagSummary, rank_summary(ranks, pipeline, records, probed).dump());
    return 0;
  }
  RunTotals totals;
  totals.add(record);
  for (std::size_t i = 1; i < ranks_json.size(); ++i) totals.add(ranks_json[i], pipeline.gpu());
  if (ranks.size() == 1 &&
      every_pixel_at_limit(record, pixels_of(o.width, o.height, o.ss), view.max_iter))
    std::cerr << "mandelpipe: note: every pixel reached the limit of " << view.max_iter
              << (view.max_iter == 1 ? " iteration" : " iterations")
              << " (none escaped), so the image is one colour: the set's inside, or "
                 "a limit too low for the view ("
              << (o.auto_iters.value_or(false) ? "--iters: the preview found no pixel to free"
                                               : "--iters, --auto-iters on")
              << ")\n";
  std::cout << "wrote " << printable(png.string()) << (o.exr.empty() ? "" : ", " + printable(o.exr))
            << " and " << printable(json_path.string()) << " (" << o.width << "x" << o.height
            << (o.ss > 1 ? ", ss " + std::to_string(o.ss) : "") << ", " << rendered_by(choice)
            << ", " << pipeline.renderer_description() << ", "
            << std::lround(progress.elapsed_s() * 1000) << " ms wall, start to end; "
            << run_summary(record.wall_ms, "from the image's first band to its files written",
                           totals.compute_ms, totals.colour_ms, totals.encode_ms, pipeline.gpu(),
                           pipeline.threads())
            << failures_text(pipeline)
            << (ranks.size() > 1 ? "; " + std::to_string(ranks.size()) + " MPI ranks" : "")
            << ")\n";
  if (!dc.cpu_reason.empty()) std::cerr << "mandelpipe: note: " << dc.cpu_reason << "\n";
  return 0;
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
  // Only where on, so that a sequence made before the flag existed resumes as it is.
  if (o.auto_iters.value_or(false)) p["auto_iters"] = true;
  p.update(colour);
  return p;
}

int render_zoom(const RenderOptions& o, const DeviceChoice& dc, const Palette& palette,
                const MpiRanks& ranks, const Startup& probed) {
  const fs::path dir = o.out;
  const Plan plan = plan_for(o.width, o.height, o.ss);
  BandPipeline pipeline(plan, look_for(o, palette), PipelineOutput::kSequence, o.png_level,
                        dc.devices, !o.no_approximation, hooks_from_environment());
  pipeline.release_devices_after_run();  // the process's last CUDA work
  std::vector<View> views = zoom_sequence(o.view, *o.zoom_to, o.zoom_frames);

  const nlohmann::json colour = colour_settings_json({palette.name, o.colour});
  nlohmann::json head;
  head["mandelpipe"] = kVersion;
  head["run_started"] = utc_timestamp();  // the run that last wrote the listing (--resume too)
  head["parameters"] = sequence_parameters(o, colour);
  head["width"] = o.width;
  head["height"] = o.height;
  head["ss"] = o.ss;
  head["renderer"] = pipeline.renderer_description();
  head["cpu"] = cpu_model_name();
  head["fallback"] = fallback_json(dc);
  head["tiling"] =
      tiling_json(plan, pipeline, plan.bands() * plan.pieces_across(), o, o.exr_frames);
  head["timing_measured"] = timing_note(pipeline.gpu());
  // Each frame by the precision rule, as the window would render it at that depth; a line on
  // stderr where what renders changes, said once the folder is taken so a refusal stays one line.
  std::string changes;
  std::vector<nlohmann::json> entries;
  std::vector<PrecisionChoice> choices;
  const auto plan_frames = [&] {
    changes.clear();
    entries.clear();
    choices.clear();
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
      if (o.exr_frames) {
        f["exr"] = exr_name(k);
        // A frame's own: a resumed run may compress its frames otherwise than the first did.
        f["exr_compression"] = exr_compression_name(o.exr_compression);
      }
      f.update(colour);
      f["precision_exhausted"] = c.exhausted;
      if (k == 0 ? !c.why.empty() : rendered_by(c) != rendered_by(choices[k - 1]))
        changes += "mandelpipe: from " + frame_name(k) + " on, " +
                   (c.why.empty() ? rendered_by(c) + " holds" : c.why + pin_hint(c)) + "\n";
      entries.push_back(std::move(f));
    }
  };
  plan_frames();

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
  // The folder is rank 0's: it locks it, keeps frames.json and tells every rank the frames kept.
  std::optional<SequenceFolder> folder;
  const nlohmann::json kept = nlohmann::json::parse(on_root(ranks, [&] {
    try {
      // A new sequence is checked before its folder is made; a resumed one once the frames it
      // keeps are known.
      if (!o.resume) check_room_for(o.zoom_frames);
      folder.emplace(dir, head, o.resume);
      if (o.resume) check_room_for(o.zoom_frames - folder->kept());
    } catch (const std::exception& e) {
      throw ExitError(2, e.what());
    }
    nlohmann::json frames = nlohmann::json::array();
    for (int k = 0; k < o.zoom_frames; ++k)
      if (folder->has(k)) frames.push_back(k);
    return frames.dump();
  }));
  // With --auto-iters, each frame's limit from a preview, once the folder is taken (a refusal
  // comes first, in one line); rank 0's previews set every rank's limits.
  std::string limits_line;
  if (o.auto_iters.value_or(false)) {
    Progress previewing(!ranks.root());
    std::vector<unsigned> limits;
    if (ranks.root()) {
      LimitPreview preview(plan, dc.device, !o.no_approximation, choose_for(plan, o, dc));
      limits = sequence_limits(views, o.view.max_iter, preview, previewing);
    }
    limits = nlohmann::json::parse(ranks.broadcast(nlohmann::json(limits).dump()))
                 .get<std::vector<unsigned>>();
    for (std::size_t k = 0; k < views.size(); ++k) views[k].max_iter = limits[k];
    plan_frames();
    limits_line = "mandelpipe: automatic iterations: " + std::to_string(limits.front()) + " at " +
                  frame_name(0) + " to " + std::to_string(limits.back()) + " at " +
                  frame_name(o.zoom_frames - 1) + " (from a preview of each frame)\n";
  }
  std::vector<int> missing_frames;
  for (int k = 0; k < o.zoom_frames; ++k)
    if (std::find(kept.begin(), kept.end(), k) == kept.end()) missing_frames.push_back(k);
  const int missing = static_cast<int>(missing_frames.size());
  if (ranks.root()) {
    say_removed(folder->stale_removed());
    std::cerr << limits_line << changes;
    say_plan(plan, pipeline, o.exr_frames);
    if (o.resume)
      std::cerr << "mandelpipe: --resume: " << kept.size() << " of " << o.zoom_frames
                << " frames already whole in " << printable(dir.string()) << ", rendering "
                << missing << "\n";
  }
  std::vector<PipelineImage> images;
  std::vector<int> frame_of;  // each image's frame number
  const std::vector<int> mine = frames_of_rank(missing_frames, ranks.rank(), ranks.size());
  const bool needs_reference = std::any_of(mine.begin(), mine.end(), [&](int k) {
    return choices[static_cast<std::size_t>(k)].perturbation.has_value();
  });
  for (const int k : render_order(mine, needs_reference)) {
    PipelineImage image{views[k],
                        choices[k],
                        dir / frame_name(k),
                        {},
                        {},
                        "frame " + std::to_string(k + 1) + "/" + std::to_string(o.zoom_frames)};
    if (o.exr_frames) {
      image.exr = dir / exr_name(k);
      image.exr_attributes = exr_attributes(views[k], o);
      image.exr_compression = o.exr_compression;
    }
    images.push_back(std::move(image));
    frame_of.push_back(k);
  }
  Progress progress(!ranks.root());
  RunTotals totals;
  const KillHook kill = kill_hook_from_environment();
  int written = 0;
  // On rank 0, the frames the other ranks have written, listed as their word comes.
  const auto record_frame = [&](const nlohmann::json& notice) {
    folder->record_frame(notice.at("frame").get<int>(), notice.at("entry"));
  };
  const std::function<void()> listen = [&] {
    while (const std::optional<MpiRanks::Message> m = ranks.poll(kTagFrame))
      record_frame(nlohmann::json::parse(m->bytes));
  };
  std::vector<int> at_limit;  // frames whose every pixel reached the limit
  try {
    const std::vector<ImageRecord> records = pipeline.run(
        images, progress,
        [&](int i, StreamedFile& file, const ImageRecord& r) {
          const int k = frame_of[static_cast<std::size_t>(i)];
          if (ranks.size() == 1 &&
              every_pixel_at_limit(r, pixels_of(o.width, o.height, o.ss), views[k].max_iter))
            at_limit.push_back(k);
          nlohmann::json entry = entries[k];
          entry["png_level"] = o.png_level;
          entry["timing"] = timing_json(r, pipeline.gpu());
          entry["rendered_on"] = shares_json(pipeline, r);
          if (ranks.size() > 1) entry["rank"] = ranks.rank();
          totals.add(r);
          // The frame in place first, then frames.json listing it: the listing never names a
          // frame that is not there. Another rank's goes into place, then rank 0 hears of it.
          if (kill.before_rename && ranks.rank() == kill.rank && written == kill.after)
            raise(SIGKILL);
          if (ranks.root()) {
            folder->commit_frame(k, entry, file);
          } else {
            write_files_atomic({}, file);
            ranks.send(0, kTagFrame, nlohmann::json{{"frame", k}, {"entry", entry}}.dump());
          }
          if (ranks.rank() == kill.rank && ++written == kill.after && !kill.before_rename)
            raise(SIGKILL);
        },
        nullptr, ranks.size() > 1 && ranks.root() ? listen : std::function<void()>());
    if (!ranks.root()) {
      ranks.send(0, kTagSummary, rank_summary(ranks, pipeline, records, probed).dump());
      return 0;
    }
    nlohmann::json run = {{"frames_rendered", missing},
                          {pipeline.gpu() ? "gpu_kernel_ms" : "cpu_render_ms", totals.compute_ms},
                          {"colour_on", pipeline.colours_on_gpu() ? "GPU" : "CPU"},
                          {"colour_encode_ms", totals.encode_ms},
                          {"encoder_threads", pipeline.threads()},
                          {"peak_rss_mib", std::round(peak_rss_mib())},
                          {"workers", workers_json(pipeline)},
                          {"measured",
                           "this run's: its wall time from the start of the rendering, its "
                           "frames' figures (timing in each frame) summed"}};
    if (ranks.size() > 1) {
      run["ranks"] =
          gather_summaries(ranks, rank_summary(ranks, pipeline, records, probed), record_frame);
      for (std::size_t i = 1; i < run["ranks"].size(); ++i)
        totals.add(run["ranks"][i], pipeline.gpu());
      run[pipeline.gpu() ? "gpu_kernel_ms" : "cpu_render_ms"] = totals.compute_ms;
      run["colour_encode_ms"] = totals.encode_ms;
    }
    if (pipeline.colours_on_gpu()) run["gpu_colour_ms"] = totals.colour_ms;
    run["wall_ms"] = progress.elapsed_s() * 1000;
    run["startup"] =
        startup_json(pipeline, probed, records.empty() ? nullptr : &records.front(), Clock::now());
    folder->record_run(run);
  } catch (const CudaError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  if (!at_limit.empty()) {
    std::sort(at_limit.begin(), at_limit.end());
    std::cerr << "mandelpipe: note: in " << at_limit.size() << " of the " << missing
              << " frames rendered (" << frame_name(at_limit.front())
              << (at_limit.size() > 1 ? " to " + frame_name(at_limit.back()) : "")
              << ") every pixel reached its limit (none escaped), so each is one colour: the "
                 "set's inside, or a limit too low for the view ("
              << (o.auto_iters.value_or(false) ? "--iters: the previews found no pixel to free"
                                               : "--iters, --auto-iters on")
              << ")\n";
  }
  std::cout << "wrote " << missing << (missing == 1 ? " frame" : " frames")
            << " and frames.json to " << printable(dir.string()) << " (" << o.width << "x"
            << o.height << ", " << rendered_by(choices.front())
            << (rendered_by(choices.front()) != rendered_by(choices.back())
                    ? " to " + rendered_by(choices.back())
                    : "")
            << ", " << pipeline.renderer_description() << ", "
            << std::lround(progress.elapsed_s() * 1000) << " ms wall, start to end; "
            << run_summary(progress.elapsed_s() * 1000, "from start to end", totals.compute_ms,
                           totals.colour_ms, totals.encode_ms, pipeline.gpu(), pipeline.threads())
            << failures_text(pipeline)
            << (ranks.size() > 1 ? "; " + std::to_string(ranks.size()) + " MPI ranks" : "")
            << ")\n";
  if (!dc.cpu_reason.empty()) std::cerr << "mandelpipe: note: " << dc.cpu_reason << "\n";
  return 0;
}

// The still's checks, before any work (rank 0's): its files can be made there, no other run
// writes them (the lock, held until they are in place), what killed runs left is gone, and they
// may fit.
std::string still_checks(const RenderOptions& o, std::optional<OutputLock>& lock) {
  try {
    check_writable(o.out);
    check_writable(sidecar_path(o.out));
    if (!o.exr.empty()) check_writable(o.exr);
    lock.emplace(o.out);
    check_sidecar_is_ours(sidecar_path(o.out));
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
    check_room(needs, o.out + (o.exr.empty() ? " and its sidecar" : ", its sidecar and " + o.exr));
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  return "";
}

// A rank (or a process) that may run on one core of several, as mpirun binds each of two ranks
// by default, says so in one line: its PNG compression then has that core alone.
void say_one_core(const MpiRanks& ranks) {
  const unsigned host = std::thread::hardware_concurrency();
  if (usable_cores() != 1 || host <= 1) return;
  const std::string who = ranks.size() > 1
                              ? "rank " + std::to_string(ranks.rank()) + " of " +
                                    std::to_string(ranks.size()) + " on " + ranks.host()
                              : "this process";
  const std::string more =
      ranks.size() > 1
          ? "mpirun binds each rank to one core by default where there are two ranks or fewer; "
            "give each more with mpirun --bind-to none, or --map-by slot:pe=N for N cores a rank "
            "(srun: --cpus-per-task=N)"
          : "its CPU affinity (taskset, a container's or a batch system's limit) allows no more";
  std::cerr << "mandelpipe: note: " + who + " may run on 1 core of the host's " +
                   std::to_string(host) + ": PNG compression has that core alone (" + more + ")\n"
            << std::flush;
}

// `devices`: found on the thread run_render started, waited for once the outputs are checked.
int render_with(const RenderOptions& o, const Palette& palette, const MpiRanks& ranks,
                std::future<DevicesFound>& devices) {
  std::optional<OutputLock> lock;
  if (!o.zoom_to) on_root(ranks, [&] { return still_checks(o, lock); });
  const DevicesFound found = devices.get();
  DeviceChoice dc = found.choice;
  const Startup probed{found.probed, found.contexts};
  // Ranks that share a host share its GPUs, unless --devices said which.
  if (ranks.size() > 1 && !o.devices.given && !dc.devices.empty()) {
    dc.devices = host_share(dc.devices, ranks);
    dc.device = dc.devices.front();
  }
  if (!dc.left_out.empty() && ranks.root())
    std::cerr << "mandelpipe: note: left out: " << dc.left_out << "\n";
  say_one_core(ranks);
  return o.zoom_to ? render_zoom(o, dc, palette, ranks, probed)
                   : render_one(o, dc, palette, ranks, probed);
}

}  // namespace

int run_render(const RenderOptions& o) {
  // The CUDA driver's start and the device census and, where the GPUs this process renders on are
  // known now (alone, or --devices given), their contexts: the longest steps before the first
  // band, on a thread of their own while MPI starts and the outputs are checked. (Ranks that
  // share a host deal its GPUs once MPI has started: a context on every GPU would be waste.)
  const bool known = !MpiRanks::launched() || o.devices.given;
  std::future<DevicesFound> devices = std::async(std::launch::async, [&o, known] {
    DevicesFound found{choose_devices(o.devices, o.force_cpu), Clock::now(), {}};
    if (known) start_contexts(found.choice.devices);
    found.contexts = Clock::now();
    return found;
  });
  const Palette palette = find_palette(o.palette);  // refused as the options are, by every rank
  const MpiRanks ranks;  // one process, unless mpirun or srun started several
  if (ranks.root())
    for (const std::string& note : o.notes) std::cerr << "mandelpipe: " << printable(note) << "\n";
  if (ranks.size() == 1) return render_with(o, palette, ranks, devices);
  // A rank that fails leaves the others waiting for it: it says why and ends them all.
  std::string why;
  int code = 1;
  try {
    return render_with(o, palette, ranks, devices);
  } catch (const AgreedExit&) {
    throw;
  } catch (const ExitError& e) {
    why = e.what();
    code = e.code();
  } catch (const std::exception& e) {
    why = std::string("error: ") + e.what();
  }
  // One write, so that the lines of ranks failing together do not mix.
  std::cerr << "mandelpipe: rank " + std::to_string(ranks.rank()) + " of " +
                   std::to_string(ranks.size()) + " on " + ranks.host() + ": " + printable(why) +
                   "\n"
            << std::flush;
  ranks.abort(code);
}

}  // namespace mp
