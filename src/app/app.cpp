#include "app/app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <utility>

#include "app/frame_memory.h"
#include "app/help_window.h"
#include "app/layout.h"
#include "app/panel.h"
#include "app/precision_banner.h"
#include "cli/exit_error.h"
#include "cli/view_text.h"
#include "io/embedded.h"
#include "io/files.h"
#include "io/printable.h"
#include "kernel_params.h"
#include "model/frame_tally.h"
#include "model/variant_table.h"
#include "session/deep_reference.h"

namespace mp {
namespace {

// Ctrl+= and Ctrl+-: the UI size moves in steps an eighth apart.
constexpr float kUiScaleStep = 0.125f;
// The CPU path's wall time per window frame spent rendering: short enough that the window
// draws and answers input at well over 30 fps while a heavy frame refines.
constexpr double kCpuSliceMs = 20;
// The GPU path's time per launch, one launch per window frame: below the 20 ms bound with room
// for a launch sized by the rate of cheaper tiles than it meets.
constexpr double kGpuLaunchMs = 15;

std::filesystem::path config_file(const std::filesystem::path& dir, const char* name) {
  return dir.empty() ? std::filesystem::path() : dir / name;
}

// A --location's place on the area the view fills (KF's zoom sets its height's span), at the limit
// the command line settled; `given` (made for the whole window) where that fails.
View located(const KfrLocation& k, const View& given, int width, int height) {
  ViewState s;
  s.view = given;
  const ViewTextResult r = kfr_location_view(k, s, width, height);
  if (!r.ok) return given;
  View v = r.state.view;
  v.max_iter = given.max_iter;
  return v;
}

Settings initial_settings(const std::filesystem::path& dir, const WindowOptions& o,
                          std::string* warn) {
  Settings s = load_settings(config_file(dir, "settings.json"), warn);
  if (o.window_size_given) {
    s.window_width = o.width;
    s.window_height = o.height;
  }
  if (o.palette_given) s.palette = o.palette;
  if (o.colour_given.density) s.colour.density = o.colour.density;
  if (o.colour_given.offset) s.colour.offset = o.colour.offset;
  if (o.colour_given.stripe) s.colour.stripe = o.colour.stripe;
  // The size settings.json asks for costs what the command line's does, and is said the same.
  if (const std::string notice = frame_memory_notice(s.window_width, s.window_height);
      !notice.empty())
    std::cerr << "mandelpipe: " << notice << "\n";
  return s;
}

}  // namespace

App::App(const WindowOptions& o)
    : opts_(o),
      config_(config_dir(&config_problem_)),
      settings_(initial_settings(config_, o, &settings_warning_)),
      device_(choose_device(o.force_cpu)),
      facts_(device_facts(device_.device)),
      palettes_(parse_palettes(embedded::palettes_json)),
      bookmarks_(parse_bookmarks(embedded::bookmarks_json)),
      // The SASS of the kernels this process runs, for the overlay and the SASS view: read off
      // the UI thread, since cuobjdump takes a moment.
      sass_(facts_.arch),
      glfw_(),
      window_(settings_.window_width, settings_.window_height, "mandelpipe"),
      imgui_(window_.get(), window_.content_scale(), settings_.ui_scale,
             config_.empty() ? "" : config_file(config_, "imgui.ini").string()),
      gpu_(session_renderer(device_.device)),
      pipeline_(device_.device, device_.cpu_reason, o.present),
      deep_(device_.device),
      ab_(o.overlay_ab || o.counters_ab) {
  ex_.view = ex_.home = o.view;
  ex_.variant = ex_.own_variant = o.variant;
  ex_.pin_variant = o.pin;  // the session's: K and --pin, not kept in the settings
  // A limit given with --iters is the user's own, as one set with PgUp/PgDn is.
  ex_.auto_iters = o.auto_iters.value_or(!o.iters_given);
  ex_.vsync = o.vsync;
  ex_.live = device_.device.has_value() || o.frames > 0;
  ex_.divergence = o.divergence;
  ex_.show_overlay = o.overlay;
  ex_.show_sass = o.sass_view;
  // Deep views iterate every step where asked, as render and bench do (and then have a
  // whole-kernel model: the bilinear tables' look-ups have none).
  deep_.renderer().set_approximation(!o.no_approximation);
  ex_.colour = settings_.colour;
  ex_.ui_scale = laid_out_scale_ = settings_.ui_scale;
  fit_view_ = !o.view_given || o.location;
  // Said in the window too, not on stderr alone: a window started from a launcher has none.
  if (!config_problem_.empty()) {
    ex_.status =
        "settings and bookmarks are not kept: no configuration folder (" + config_problem_ + ")";
    std::cerr << "mandelpipe: " << printable(ex_.status) << "\n";
  }
  if (!settings_warning_.empty()) {
    ex_.status = settings_warning_ +
                 " (left as it is; fix or delete it: until then this "
                 "session's settings are not saved)";
    std::cerr << "mandelpipe: " << printable(ex_.status) << "\n";
  }
  if (!user_bookmarks_.problem().empty()) {
    std::cerr << "mandelpipe: " << printable(user_bookmarks_.problem()) << "\n";
    ex_.status = user_bookmarks_.problem();
  }
  const int asked_w = settings_.window_width, asked_h = settings_.window_height;
  if (const auto screen = Window::screen_size();
      screen && (asked_w > screen->first || asked_h > screen->second)) {
    ex_.status = "the window (" + std::to_string(asked_w) + "x" + std::to_string(asked_h) +
                 ") is larger than the screen (" + std::to_string(screen->first) + "x" +
                 std::to_string(screen->second) +
                 "): its frames cost as much as its size; the next session opens at most at the "
                 "screen's (mandelpipe render makes images of any size)";
    std::cerr << "mandelpipe: " << ex_.status << "\n";
  }
  bool known = false;
  for (std::size_t i = 0; i < palettes_.size(); ++i)
    if (palettes_[i].name == settings_.palette) {
      ex_.palette = static_cast<int>(i);
      known = true;
    }
  if (!known) {
    ex_.status = "settings: palette '" + settings_.palette + "' is not one of this version's (" +
                 palettes_[ex_.palette].name + " shown; the file keeps it until another is picked)";
    std::cerr << "mandelpipe: " << printable(ex_.status) << "\n";
  }
  palette_at_start_ = ex_.palette;
  ui_timed_on_ = gl::timer_queries_time();
  if (settings_.window_x && settings_.window_y && !o.window_size_given)
    window_.move_to(*settings_.window_x, *settings_.window_y);
  window_.set_vsync(ex_.vsync);
  if (gpu_.has_renderer() && !o.no_counters)
    counters_.start(device_.device->index, o.counter_interval_us, o.stalls);
  else if (o.stalls || o.counters_ab)
    // Asked for on the command line: said there too, not only in the overlay.
    std::cerr << "mandelpipe: " << (o.stalls ? "--stalls" : "--counters-ab")
              << ": the GPU's counters need the CUDA path, which is not in use ("
              << printable(device_.cpu_reason.empty() ? "no GPU renderer" : device_.cpu_reason)
              << ")\n";
  if (!o.open_experiment.empty()) {
    experiments_.select(o.open_experiment);
    ex_.show_experiments = true;
    if (gpu_.has_renderer())
      experiments_.request(ex_.jobs, gpu_.peek()->device(), counters_.probe());
    else  // the window says so too, where it is seen
      std::cerr << "mandelpipe: --open-experiment " << o.open_experiment
                << ": not run; the experiments time GPU kernels and the CPU path renders ("
                << printable(pipeline_.fallback_reason().empty() ? device_.cpu_reason
                                                                 : pipeline_.fallback_reason())
                << "): the window shows what it asks and what the model predicts\n";
  }
}

App::~App() {
  sass_.cancel();    // the SASS is of no use now: stop its read while the rest ends
  ex_.jobs.drain();  // a step on a worker uses the windows and the renderer declared around ex_
  // Never overwrite a file we could not read; either way the user hears that nothing was saved.
  if (config_.empty() || !settings_warning_.empty()) {
    std::cerr << "mandelpipe: settings not saved: "
              << (config_.empty() ? "no configuration folder (" + config_problem_ + ")"
                                  : "settings.json was not read (left as it is)")
              << "\n";
    return;
  }
  const auto [w, h] = window_.size();
  const auto [x, y] = window_.position();
  // A side shrunk below 200 pixels (a slip of the mouse, a script) is not one to reopen at: the
  // side before it is kept. One past the screen (--width 16384) is this session's: the next opens
  // at most as large as the screen.
  const auto screen = Window::screen_size();
  if (w >= 200) settings_.window_width = screen ? std::min(w, screen->first) : w;
  if (h >= 200) settings_.window_height = screen ? std::min(h, screen->second) : h;
  settings_.window_x = x;
  settings_.window_y = y;
  // A palette this version does not know is kept in the file unless another was picked.
  if (ex_.palette != palette_at_start_) settings_.palette = palettes_[ex_.palette].name;
  settings_.colour = ex_.colour;
  settings_.ui_scale = ex_.ui_scale;
  try {
    save_settings(config_file(config_, "settings.json"), settings_);
  } catch (const std::exception& e) {
    std::cerr << "mandelpipe: settings not saved: " << printable(e.what()) << "\n";
  }
}

int App::run() {
  last_frame_start_ = glfwGetTime();
  int settle_frames = 0;
  // A signal that asks the window to quit (files.h) ends it as closing it does.
  auto closing = [this] { return window_.should_close() || quit_signal() != 0; };
  for (;;) {
    const double events_start = glfwGetTime();
    // While a job measures the GPU on the worker, the window draws at most 30 times a second
    // (at once on input): each of its draws shares the GPU with the timed kernels, which drawing
    // as fast as it could made measurably longer (docs/measurements.md).
    if (ex_.jobs.off_thread())
      glfwWaitEventsTimeout(1.0 / 30);
    else if (ex_.live || !shown_ ||
             frame_start(wanted_key(shown_->of.width, shown_->of.height), shown_, false, true) !=
                 FrameStart::None ||
             !ex_.jobs.empty() || pipeline_.refining() || deep_.busy())
      glfwPollEvents();
    else
      glfwWaitEventsTimeout(0.25);  // idle: nothing changes, nothing to redraw
    bool last = closing() || (opts_.frames > 0 && frames_done_ + 1 >= opts_.frames);
    // A scripted screenshot shows the SASS view and the SASS-based overlay as a user sees them
    // once cuobjdump is done, not the "reading SASS..." of the first second: the window goes on
    // drawing until it is (a blocking wait would show as one long frame in the panel's frame
    // time), then draws two frames more, since ImGui fits a window to the content of the frame
    // before.
    if (last && !opts_.screenshot.empty() && sass_.reading() && !closing()) {
      last = false;
      settle_frames = 2;
    }
    if (settle_frames > 0 && !closing()) {
      --settle_frames;
      last = false;
    }
    const double render_start = glfwGetTime();
    phases_.events = render_start - events_start;
    render_frame();
    ++frames_done_;
    const double jobs_start = glfwGetTime();
    phases_.render = jobs_start - render_start;
    // The point of the frame where queued work runs: drawn (a capture reads the back buffer),
    // not yet shown.
    capture_when_whole();
    if (const auto job = ex_.jobs.off_thread_starting()) lend_gpu(*job);
    ex_.jobs.run();
    sync_lease();
    const double swap_start = glfwGetTime();
    phases_.jobs = swap_start - jobs_start;
    // A scripted screenshot shows the finished image, and a scripted CUDA run ends on a finished
    // frame, as when a window frame was a whole frame: the frame's last slices come first.
    if (last && (!opts_.screenshot.empty() || pipeline_.on_gpu()) &&
        (pipeline_.refining() || deep_.busy()) && !closing())
      last = false;
    // A scripted screenshot shows the overlay's whole-kernel lines of the frame shown, once worked
    // out (a fraction of a second after the SASS is read).
    if (last && !opts_.screenshot.empty() && ex_.show_overlay && report_ && frame_has_parts() &&
        !parts_.settled(kernel_parts_of()) && !closing()) {
      last = false;
      settle_frames = 2;  // and two frames more once they are, for the overlay to fit them
    }
    // So does the work queued for later steps (a capture whose files wait for its compare).
    if (last && !ex_.jobs.empty() && !closing()) last = false;
    if (last) {
      if (!opts_.screenshot.empty()) {
        try {
          take_screenshot(opts_.screenshot);
        } catch (const std::exception& e) {
          throw ExitError(2, std::string("--screenshot: ") + e.what());
        }
      }
      break;
    }
    glfwSwapBuffers(window_.get());
    phases_.swap = glfwGetTime() - swap_start;
  }
  // A capture waiting for its compare is written without it rather than lost: the worker's step
  // ends first, then the capture's files are written with why the compare is missing.
  ex_.jobs.drain();
  compare_.abandon("stopped: the window closed before every variant was timed");
  if (opts_.frames > 0) print_summary();
  // The scripted summary says it too; a user who pressed F12 and closed the window is told here.
  if (capture_waiting_ && opts_.frames <= 0)
    std::cerr << "mandelpipe: capture (F12) not taken: the window closed before its frame "
                 "finished\n";
  if (const int sig = quit_signal())
    std::cerr << "mandelpipe: signal " << sig << " (" << strsignal(sig)
              << "): quitting as on Esc\n";
  return 0;
}

void App::lend_gpu(const std::string& job) {
  // Lent before the worker starts, so that the step finds it its own from its first line.
  gpu_.lend(job);
  // The counters' reading open over an unfinished frame would hold the experiment's samples:
  // dropped, and the frame starts again once the job gives the renderer back (its generation
  // moves).
  if (counter_reading_) counters_.drop(*std::exchange(counter_reading_, std::nullopt));
}

void App::sync_lease() {
  if (gpu_.lent() && !ex_.jobs.off_thread()) gpu_.give_back();
}

void App::print_summary() const {
  // What the frames cost, all of them; on the CUDA path, the longest launch of the run too.
  const bool cuda = device_.device.has_value();
  const long pieces = totals_.mean_slices();
  std::cout << "frames " << frames_done_ << ", mean frame " << totals_.mean_frame_ms()
            << " ms (start to start), mean " << (cuda ? "kernel " : "CPU render ")
            << totals_.mean_render_ms() << " ms"
            << (!totals_.renders ? " (no frame finished)"
                                 : " over " + std::to_string(pieces) +
                                       (cuda ? (pieces == 1 ? " launch" : " launches")
                                             : (pieces == 1 ? " slice" : " slices")))
            << (cuda && totals_.renders > deep_frames_
                    ? ", longest launch " + std::to_string(pipeline_.longest_launch_ms()) +
                          " ms (plain variants)"
                    : std::string())
            << (totals_.overlays ? ", pipe overlay " + std::to_string(totals_.mean_overlay_ms()) +
                                       " ms CPU per frame"
                                 : std::string())
            << ", UI draw " << totals_.mean_ui_gpu_ms() << " ms of " << ui_timed_on_ << " per frame"
            << (counters_.sampler() && !counters_.refused()
                    ? ", counter thread " +
                          std::to_string(100 * counters_.sampler()->worker_cpu_share(true)) +
                          "% of a core"
                    : std::string())
            << "\n";
  // Deep views: how the window kept up while references and bands were made.
  if (deep_frames_ > 0)
    std::cout << "deep: " << deep_frames_ << " frames by perturbation, longest launch "
              << deep_.status().longest_ms << " ms; longest window frame "
              << totals_.longest_frame_ms << " ms (rendering and drawing "
              << 1e3 * longest_phases_.render << ", of it the image " << 1e3 * longest_phases_.image
              << ", queued work " << 1e3 * longest_phases_.jobs << ", swap "
              << 1e3 * longest_phases_.swap << ", events " << 1e3 * longest_phases_.events
              << " ms), frames over 33 ms: " << totals_.slow_frames << " of " << totals_.frames
              << "\n";
  // Where the run ended up: what scripted key presses did, as Ctrl+C copies it (every digit, the
  // size of the area beside the panel that the view is of).
  const auto [fw, fh] = window_.framebuffer_size();
  std::cout << "final view: variant " << variant_info(ex_.variant).name << ", center "
            << centre_text(ex_.view.center_x, ex_.view) << ","
            << centre_text(ex_.view.center_y, ex_.view) << ", span "
            << exact_span_text(ex_.view.span) << ", iters " << ex_.view.max_iter << "\n";
  std::cout << "final colour: palette " << palettes_[ex_.palette].name << ", density "
            << ex_.colour.density << ", offset " << ex_.colour.offset << ", stripe "
            << ex_.colour.stripe << "\n";
  for (const BannerLine& l : banner_) std::cout << "final banner: " << l.text << "\n";
  if (capture_waiting_)
    std::cout << "capture (F12) not taken: the window closed before its frame finished\n";
  // The view is of the area beside the panel (Ctrl+C copies its size); how the panel fits.
  std::cout << "final area beside the panel: " << fw - std::max(view_left_, 0) << "x" << fh << "\n";
  if (ex_.show_panel)
    std::cout << "final panel: " << std::lround(panel_fit_.width) << "x"
              << std::lround(panel_fit_.height) << " at UI size x" << ex_.ui_scale
              << ", widest line " << std::lround(panel_fit_.widest) << " of "
              << std::lround(panel_fit_.room) << " px\n";
  if (!opts_.overlay_ab && !opts_.counters_ab) return;
  // Without a sampler both halves ran alike: their difference would be noise read as a cost.
  if (opts_.counters_ab && (!counters_.sampler() || counters_.refused())) {
    std::cout << "counters A/B: not run, the counters never sampled (" << counters_source(false)
              << ")\n";
    return;
  }
  std::cout << ab_.summary(opts_.counters_ab ? "counters" : "overlay", totals_.mean_overlay_ms(),
                           ui_timed_on_, device_.device.has_value());
  if (ab_.both_halves() && opts_.counters_ab && counters_.sampler())
    std::cout << "; counter thread " << 100 * counters_.sampler()->worker_cpu_share(true)
              << "% of a core";
  std::cout << "\n";
}

FrameKey App::wanted_key(int sw, int sh) const {
  FrameKey k;
  k.of = {window_view(), ex_.variant, sw, sh, ex_.divergence, precision_.perturbation.has_value()};
  k.auto_iters = ex_.auto_iters;
  k.renderer_generation = gpu_.generation();
  return k;
}

bool App::report_of_previous_view() const {
  return report_ && shown_ &&
         !(report_->of.same_place(shown_->of) && report_->of.variant == shown_->of.variant);
}

std::string App::fastest_here() const {
  if (pipeline_.on_gpu() || cpu_ms_here_.empty() || !shown_ ||
      !timed_here_.same_place(shown_->of) || timed_here_.divergence != shown_->of.divergence)
    return "";
  const auto by_ms = [](const auto& a, const auto& b) { return a.second < b.second; };
  const auto fastest = std::min_element(cpu_ms_here_.begin(), cpu_ms_here_.end(), by_ms);
  const double slowest = std::max_element(cpu_ms_here_.begin(), cpu_ms_here_.end(), by_ms)->second;
  const char* name = variant_info(fastest->first).name.data();
  char text[320];
  if (cpu_ms_here_.size() == 1)
    std::snprintf(text, sizeof text,
                  "Timed at this view on the CPU path: %s only, %.0f ms (its best frame); "
                  "switch variants to see which is fastest here.",
                  name, fastest->second);
  else
    std::snprintf(text, sizeof text,
                  "Fastest at this view on the CPU path: %s, %.0f ms (each variant's best "
                  "frame; of %zu timed here, the slowest %.1fx as long).",
                  name, fastest->second, cpu_ms_here_.size(),
                  slowest / std::max(fastest->second, 1e-9));
  return text;
}

void App::record_frame(const gl::FrameMeasurement& m, const std::optional<DeepStats>& deep) {
  // A new frame drops an unfinished one, so the frame done is the one shown.
  const FrameOf of = shown_->of;
  if (!m.gpu && !of.perturbation) {
    // A variant's best frame here: the CPU's times move with what else the machine runs. The
    // divergence view costs the CPU path more, so its frames are timed apart.
    if (!timed_here_.same_place(of) || timed_here_.divergence != of.divergence)
      cpu_ms_here_.clear();
    timed_here_ = of;
    const auto [at, fresh] = cpu_ms_here_.emplace(of.variant, m.cpu_stats.ms);
    if (!fresh) at->second = std::min(at->second, m.cpu_stats.ms);
  }
  ex_.render_ms.push(static_cast<float>(m.render_ms()));
  totals_.render_ms += m.render_ms();
  totals_.slices += m.gpu ? m.gpu_stats.launches : m.cpu_stats.slices;
  ++totals_.renders;
  FrameReport r =
      m.gpu ? gpu_frame_report(of, m.gpu_stats, facts_, sass()) : cpu_frame_report(of, m.cpu_stats);
  r.deep = deep;  // a deep frame's figures (steps skipped, rebases), as render's sidecar has them
  report_ = counters_.complete(std::move(r), frames_done_);
  if (!ex_.show_overlay) return;
  ask_kernel_parts();
  const auto t0 = std::chrono::steady_clock::now();
  show_kernel_parts(report_->metrics && report_->counters_fresh && report_->counters
                        ? &*report_->counters
                        : nullptr);
  overlay_cost_ms_ +=
      std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

KernelPartsFeed::Of App::kernel_parts_of() const {
  if (!report_) return {};
  return {report_->of.view,
          report_->of.variant,
          {report_->of.width, report_->of.height},
          report_->gpu ? report_->build : sass::KernelBuild::Plain,
          report_->gpu && report_->of.divergence};
}

bool App::frame_has_parts() const {
  if (!report_) return false;
  return !report_->of.perturbation || (report_->deep && !report_->deep->approximated);
}

void App::ask_kernel_parts() {
  if (!frame_has_parts()) return;
  // A deep frame's set-up runs as the grid's offsets from the reference are zero or not.
  int zero_offsets = -1;
  if (const DeepReference* ref = deep_.status().reference; ref && report_->of.perturbation)
    zero_offsets =
        zero_grid_offsets(deep_grid(*ref, report_->of.view, report_->of.width, report_->of.height));
  const DeepStats* cpu_deep =
      !report_->gpu && report_->deep && report_->deep->rounds_counted ? &*report_->deep : nullptr;
  parts_.frame_done(pipeline_, kernel_parts_of(), sass(), facts_.device ? &*facts_.device : nullptr,
                    report_->gpu ? &report_->gpu_stats : nullptr, zero_offsets, cpu_deep);
}

// The pipe rows by the whole kernel where its model of this frame is there, else by the step loop
// (and the lines say the whole kernel is being counted); the parts' lines beside them.
void App::show_kernel_parts(const CounterFigures* fresh_counters) {
  const KernelPartsFeed::Of of = kernel_parts_of();
  if (report_ && !frame_has_parts()) {
    if (report_->metrics && facts_.rates) overlay_.update(report_->pipe_loads, fresh_counters);
    overlay_.set_parts_lines(
        {{"Whole kernel: not modelled for perturbation frames that read the bilinear "
          "approximation's tables; frames of every step are (--no-approximation)",
          true}});
    return;
  }
  if (!report_ || !report_->metrics || !facts_.rates) {
    overlay_.set_parts_lines(parts_.lines(of, -1));
    return;
  }
  const WholeKernel* whole = parts_.model_of(of);
  double step_issue = -1;
  for (const PipeLoad& p : report_->pipe_loads)
    if (p.name == "issue" && whole) step_issue = p.utilisation;
  overlay_.update(whole ? whole_kernel_loads(*facts_.rates, facts_.sm_count, *whole,
                                             static_cast<double>(report_->gpu_stats.sm_cycles),
                                             report_->metrics->clock_ghz)
                        : report_->pipe_loads,
                  fresh_counters);
  overlay_.set_parts_lines(parts_.lines(of, step_issue));
}

std::string App::mix_source() const {
  std::string s = sass()           ? "SASS (" + sass_.loaded()->source + ")"
                  : sass_.loaded() ? "declared (" + sass_.loaded()->source + ")"
                                   : "declared (reading SASS...)";
  const LoopListing* l = sass() ? sass()->loop(ex_.variant, sass::KernelBuild::Plain) : nullptr;
  if (l && l->branches_within > 0)
    s += "; " + std::string(variant_info(ex_.variant).name) + "'s loop lists paths a step " +
         "chooses between (" + std::to_string(l->branches_within) +
         (l->branches_within == 1 ? " branch" : " branches") +
         "): the model counts them all, an upper bound";
  // The approximating build's table look-ups are not in the every-step loop the model reads.
  const std::optional<DeepStats>& deep = deep_.status().last;
  if (precision_.perturbation && deep && deep->approximated)
    s += "; model: the steps iterated, by the every-step loop; the bilinear tables' look-ups "
         "and the steps they skipped are outside it";
  return s;
}

std::optional<std::string> App::gpu_borrower() const {
  if (const auto e = experiments_.running(ex_.jobs)) return "experiment " + e->name;
  if (const auto w = ex_.jobs.off_thread()) return "the " + w->job;
  return std::nullopt;
}

std::string App::counters_source(bool brief) const {
  if (const auto who = gpu_borrower())
    return "counters: paused while " + *who + " measures the GPU";
  return counters_.source(brief, device_.device.has_value(), frames_done_);
}

StallLine App::stalls_line() const {
  if (const auto who = gpu_borrower())
    return {"stall reasons: paused while " + *who + " measures the GPU", false, ""};
  const std::optional<CounterFigures>& f = counters_.stalls();
  if (f && f->stalls) {
    const StallSummary& sum = counters_.stalls_summary();
    const ReasonShare* lead = sum.leading_stall();
    return {"stalls (PC sampling, frame " + std::to_string(counters_.stalls_frame()) +
                "): " + leading_stall_text(sum),
            false, lead ? lead->label : ""};
  }
  if (f) return {f->unavailable, true, ""};
  return {counters_.stalls_source(report_ && report_->gpu, frames_done_),
          counters_.stalls_refused(), ""};
}

SassStalls App::sass_stalls() const {
  SassStalls s;
  s.source = counters_.stalls_source(report_ && report_->gpu, frames_done_);
  const std::optional<CounterFigures>& f = counters_.stalls();
  if (f && f->stalls) {
    s.figures = &*f->stalls;
    s.frame = counters_.stalls_frame();
  } else if (f) {
    s.source = f->unavailable;
  }
  return s;
}

std::string App::paused_for_job() const {
  const auto who = gpu_borrower();
  const auto worker = ex_.jobs.off_thread();
  if (!who || !worker) return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "image paused while %s measures the GPU (%.1f s so far): the window's kernels "
                "and counters wait for it; your changes render once it ends",
                who->c_str(), worker->elapsed_s);
  return text;
}

void App::render_frame() {
  const double now = glfwGetTime();
  if (frames_done_ > 0) {  // the first frame has no previous one to be timed from
    const double ms = (now - last_frame_start_) * 1e3;
    ex_.frame_ms.push(static_cast<float>(ms));
    totals_.frame_ms += ms;
    if (ms > totals_.longest_frame_ms) {
      totals_.longest_frame_ms = ms;
      longest_phases_ = phases_;  // the last frame's, and this one's wait for events
    }
    totals_.slow_frames += ms > 1000.0 / 30;
    ++totals_.frames;
    ab_.frame_time(ms);
  }
  last_frame_start_ = now;
  // --overlay-ab: blocks of frames with and without the overlay, in turns, so that drift in the
  // frame time (clocks, the X server) falls on both alike. --counters-ab: the same, with the
  // counters' sampling stopped and started instead.
  const bool b_half = AbRecorder::b_half(frames_done_);
  if (opts_.overlay_ab) ex_.show_overlay = b_half;
  if (opts_.counters_ab && counters_.sampler()) counters_.sampler()->pause(!b_half);
  overlay_cost_ms_ = 0;
  sass_.poll();
  if (ex_.palette != palette_shown_) {
    colourizer_.set_palette(palettes_[ex_.palette]);
    palette_shown_ = ex_.palette;
  }

  imgui_.set_ui_scale(ex_.ui_scale);
  imgui_.begin_frame();
  const auto [fw, fh] = window_.framebuffer_size();
  const int left = view_left(fw);
  if (fw > 0 && fh > 0 && std::exchange(fit_view_, false)) {
    ex_.view = ex_.home = opts_.location ? located(*opts_.location, ex_.view, fw - left, fh)
                                         : fitted_set(fw - left, fh, ex_.view.max_iter);
  } else if (view_left_ >= 0 && left != view_left_ && std::pair(fw, fh) == drawn_size_) {
    // The panel came, went or changed its width (Tab, the UI size): the image stays where it is,
    // and the view is of what is beside the panel now.
    ex_.view = view_beside(whole_window_view(ex_.view, fw, view_left_), fw, left);
  }
  view_left_ = left;
  if (places_.size() == 0) places_.visit(view_state());  // the first place, as shown
  handle_input();
  apply_precision();
  // Drags, wheel notches and the panel's controls change the place a frame at a time: it is
  // kept once it has stayed put a moment.
  places_.note(view_state(), now);
  places_.tick(now);
  drawn_size_ = {fw, fh};
  // While an experiment measures the GPU on its worker, the window launches none of its kernels
  // and reads no counters, which would land in the experiment's figures: it shows the image it
  // has, and what changed meanwhile renders once the experiment ends.
  const bool gpu_lent = gpu_.lent();
  counters_.want_stalls(ex_.show_overlay || ex_.show_sass);
  const double image_start = glfwGetTime();
  if (fw > 0 && fh > 0 && !gpu_lent) render_image(fw, fh, b_half);
  phases_.image = glfwGetTime() - image_start;
  if (fw > 0 && fh > 0) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fw, fh);
    colourizer_.draw(pipeline_.surface(), ex_.colour,
                     ex_.divergence && (!precision_.perturbation || pipeline_.on_gpu())
                         ? pipeline_.warp_buffer()
                         : nullptr);
  }
  // The whole-kernel model of the last frame, once its thread has it; asked again each frame (the
  // same frame is asked once): a frame drawn before the SASS was read is counted once it is,
  // whether or not another frame renders.
  if (ex_.show_overlay) ask_kernel_parts();
  if (parts_.poll() && ex_.show_overlay) show_kernel_parts(nullptr);
  draw_windows();
  // Which half of an A/B run a frame's UI times go to: the overlay's, as drawn (P or the panel
  // may have just changed it), or the counters'.
  const bool ab_b = opts_.counters_ab ? b_half : ex_.show_overlay;
  const auto ui_start = std::chrono::steady_clock::now();
  ui_timer_.begin();
  imgui_.end_frame();
  ui_timer_.end();
  ab_.ui_cpu(frames_done_, ab_b,
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ui_start)
                 .count());
  if (const auto ms = ui_timer_.take()) {
    ui_gpu_ms_.push(static_cast<float>(*ms));
    totals_.ui_gpu_ms += *ms;
    ++totals_.ui_gpu_frames;
    ab_.ui_gpu(frames_done_, ab_b, *ms);
  }
  ab_.close_frame(frames_done_, ab_b);
}

void App::render_image(int fw, int fh, bool b_half) {
  pipeline_.resize(fw, fh);
  // The surface's size, which a window past the GL's texture limit does not reach.
  const int sw = pipeline_.surface().width(), sh = pipeline_.surface().height();
  const bool deep = precision_.perturbation.has_value();
  // Another frame than the one shown drops the stale one at once, its counters with it; live
  // starts the same one again once it is done.
  const bool idle = deep ? !deep_.busy() : !pipeline_.refining();
  const FrameKey wanted = wanted_key(sw, sh);
  const FrameStart start = frame_start(wanted, shown_, ex_.live, idle);
  if (start != FrameStart::None) {
    if (counter_reading_) counters_.drop(*std::exchange(counter_reading_, std::nullopt));
    reading_asked_ = false;
    const View& whole = wanted.of.view;
    if (deep) {
      // The previous image moved into place while the new one renders, at any depth.
      const auto [from, to] = deep_preview_grids(shown_ ? shown_->of.view : whole, whole, sw, sh);
      pipeline_.start_external(start == FrameStart::Fresh ? from : PixelGrid(), to, ex_.divergence);
      deep_.start(whole, sw, sh, *precision_.perturbation);
    } else {
      deep_.stop();
      pipeline_.start_slices(ex_.variant, whole, ex_.divergence);
    }
    shown_ = wanted;
  }
  if (deep) {
    if (!deep_.busy()) return;
    // The counters read from the frame's first band to its last, not while the reference is made;
    // asked once a frame, since a reading begun later would miss its first bands.
    if (deep_.rendering() && !std::exchange(reading_asked_, true))
      counter_reading_ = counters_.begin();
    float* out = pipeline_.begin_external();
    const std::optional<DeepStats> done = deep_.step(
        out, pipeline_.on_gpu() ? kGpuLaunchMs : kCpuSliceMs, pipeline_.external_warps());
    pipeline_.end_external();
    if (done) {
      gl::FrameMeasurement m;
      m.gpu = done->gpu;
      if (m.gpu) {
        m.gpu_stats = done->frame_stats();
      } else {
        m.cpu_stats.ms = done->ms;
        m.cpu_stats.pixel_iters = done->iterated;
        m.cpu_stats.pixel_counted = done->pixel_iters;
        m.cpu_stats.slices = done->launches;
      }
      if (counter_reading_)
        counters_.end(*std::exchange(counter_reading_, std::nullopt), frames_done_,
                      static_cast<double>(done->sm_cycles));
      record_frame(m, done);
      ++deep_frames_;
      adjust_iterations();
    }
    return;
  }
  // The counters read from the frame's first launch to the end of its last, the window's
  // drawing between them included (where they read it at all: one frame in a few).
  if (pipeline_.refining() && !std::exchange(reading_asked_, true))
    counter_reading_ = counters_.begin();
  if (const auto fm = pipeline_.render_slice(gpu_.for_window(),
                                             pipeline_.on_gpu() ? kGpuLaunchMs : kCpuSliceMs)) {
    if (counter_reading_)
      counters_.end(*std::exchange(counter_reading_, std::nullopt), frames_done_,
                    fm->gpu ? static_cast<double>(fm->gpu_stats.sm_cycles) : 0);
    record_frame(*fm);
    if (fm->gpu) ab_.kernel(frames_done_, b_half, fm->gpu_stats.kernel_ms);
    adjust_iterations();
  }
}

void App::fit_colours() {
  const std::vector<float> pixels = pipeline_.pixels();
  const std::optional<FittedColours> f =
      fitted_colours(pixels.data(), pixels.size() / kFloatsPerPixel, ex_.colour);
  char text[200];
  if (!f) {
    ex_.status = "colours not fitted: fewer than two escaped counts in this image";
    return;
  }
  ex_.colour = f->colour;
  std::snprintf(text, sizeof text,
                "colours fitted to this image: its counts, about %.0f to %.0f, span two palette "
                "cycles (density %.4g, offset %.3f)",
                f->lowest + 2, f->highest + 2, f->colour.density, f->colour.offset);
  ex_.status = text;
}

void App::adjust_iterations() {
  // Past what the pinned variant resolves the image says nothing a higher limit could change.
  if (!ex_.auto_iters || precision_.exhausted) return;
  // A zoom of 8 or more since the last fresh start is another region: it starts afresh. A view
  // whose centre lies more than a few spans from that start's is elsewhere (a jump): it starts
  // remembering nothing of the place before.
  bool elsewhere = !auto_anchor_;
  double zoomed = 0;
  if (const std::optional<View>& a = auto_anchor_) {
    zoomed = std::abs(log10_of(ex_.view.span) - log10_of(a->span));
    const FloatExp reach = (a->span < ex_.view.span ? ex_.view.span : a->span) * to_floatexp(4.0);
    const auto far = [&](const BigReal& from, const BigReal& to) {
      const FloatExp d = to_floatexp(to - from);
      return !((d.m < 0 ? -d : d) < reach);
    };
    elsewhere = far(a->center_x, ex_.view.center_x) || far(a->center_y, ex_.view.center_y);
  }
  if (elsewhere)
    auto_iters_.forget();
  else if (zoomed > 0.9)
    auto_iters_.reset();
  if (elsewhere || zoomed > 0.9) auto_anchor_ = ex_.view;
  const double share = pipeline_.edge_inside_share();
  const double late = pipeline_.late_share(ex_.view.max_iter);
  const DeepStatus& deep = deep_.status();
  const unsigned period = deep.active && deep.reference ? deep.reference->view_period : 0;
  const bool in_view = period && deep.reference->period_in_view;
  const unsigned floor = limit_floor(ex_.view.span, period, in_view);
  const unsigned next = auto_iters_.next(share, late, ex_.view.max_iter, kMaxIterations, floor);
  if (next == ex_.view.max_iter) return;
  const unsigned before = ex_.view.max_iter;
  const ViewState was = view_state();
  View v = ex_.view;
  v.max_iter = next;
  ex_.set_view(v);
  places_.amend(was, view_state());
  char text[256];
  // Below the floor most of the edge at the limit doubles it on (AutoIterations::next).
  const bool below_floor = share > AutoIterations::kMostOfTheEdge && before < floor;
  if (below_floor && floor_from_period(ex_.view.span, period, in_view))
    std::snprintf(text, sizeof text,
                  "iterations raised to %u (automatic: %.0f%% of the image's edge reached the "
                  "limit; with %s it doubles on while most of the edge does, up to %u and past "
                  "it once)",
                  next, 100 * share, minibrot_words(period, in_view).c_str(), floor);
  else if (below_floor)
    std::snprintf(text, sizeof text,
                  "iterations raised to %u (automatic: %.0f%% of the image's edge reached the "
                  "limit; at this depth it doubles on while most of the edge does, up to %u and "
                  "past it once)",
                  next, 100 * share, floor);
  else if (share > AutoIterations::kRaiseShare)
    std::snprintf(text, sizeof text,
                  "iterations raised to %u (automatic: %.0f%% of the image's edge reached the "
                  "limit)",
                  next, 100 * share);
  else
    std::snprintf(text, sizeof text,
                  "iterations raised to %u (automatic: %.1f%% of the image escaped only in the "
                  "limit's last half)",
                  next, 100 * late);
  ex_.status = text;
}

void App::draw_windows() {
  const float scale = window_.content_scale() * ex_.ui_scale;
  Layout layout = Layout::current();
  layout.begin(window_places_, ex_.ui_scale != laid_out_scale_);
  laid_out_scale_ = ex_.ui_scale;
  const auto [fw, fh] = window_.framebuffer_size();
  // The fixed windows first, so that the tool windows after them keep clear of where they are.
  banner_ = precision_banner_lines(window_view(), precision_, fw, fh);
  if (std::string memory = frame_memory_notice(fw, fh); !memory.empty())
    banner_.push_back({Tone::Warning, "A" + memory.substr(1) + "."});
  // Tab clears the view of both, for a screenshot without them (the panel says the same).
  if (ex_.show_panel) draw_banner(banner_, layout);
  if (ex_.show_panel) {
    const PanelInputs in{facts_,
                         panel_path(pipeline_, gpu_),
                         gpu_,
                         deep_.status(),
                         centre_lines_.of(ex_.view),
                         report_.get(),
                         sass(),
                         counters_source(false),
                         counters_.refused(),
                         paused_for_job(),
                         (pipeline_.refining() || deep_.busy()) && report_of_previous_view(),
                         fastest_here(),
                         palettes_,
                         bookmarks_,
                         user_bookmarks_.bookmarks(),
                         user_bookmarks_.problem(),
                         naming_};
    PanelActions actions;
    panel_fit_ = draw_panel(&ex_.show_panel, ex_, in, actions, layout);
    act_on(actions);
  } else {
    layout.panel_hidden();
  }
  if (ex_.show_overlay) {
    const auto t0 = std::chrono::steady_clock::now();
    overlay_.draw(pipeline_.on_gpu(), mix_source(), counters_source(true), stalls_line(),
                  overlay_ms_.mean(), ui_gpu_ms_.mean(), ui_timed_on_, ex_.frame_ms.mean(), scale,
                  layout);
    overlay_cost_ms_ +=
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
    overlay_ms_.push(overlay_cost_ms_);
    totals_.overlay_ms += overlay_cost_ms_;
    ++totals_.overlays;
  }
  if (ex_.show_sass) {
    // The loop of the kernel build the last frame ran: the recording one on a view's first frame
    // and for the divergence view, the resumable one where its orbits were cut.
    const sass::KernelBuild build =
        report_ && report_->gpu ? report_->build : sass::KernelBuild::Plain;
    const LoopListing* l = sass() ? sass()->loop(ex_.variant, build) : nullptr;
    draw_sass_view(variant_info(ex_.variant), build, l,
                   sass_.loaded() ? sass_.loaded()->source : "reading SASS...", sass_stalls(),
                   layout);
  }
  compare_.draw(ex_, layout, window_view(), fw, fh, opts_.capture_dir);
  if (ex_.show_experiments)
    experiments_.draw(&ex_.show_experiments, ex_, layout,
                      gpu_.has_renderer() ? &gpu_.peek()->device() : nullptr, counters_.probe());
  sweep_.draw(ex_, layout, facts_.arch);
  if (ex_.show_help) draw_help_window(&ex_.show_help, layout);
}

void App::act_on(const PanelActions& a) {
  if (a.variant) ex_.set_variant(*a.variant);
  if (a.max_iter) {
    View v = ex_.view;
    v.max_iter = *a.max_iter;
    ex_.set_view(v);
    ex_.auto_iters = false;
  }
  if (a.auto_iters) ex_.auto_iters = *a.auto_iters;
  if (a.live) ex_.live = *a.live;
  if (a.palette) ex_.palette = *a.palette;
  if (a.colour) ex_.colour = *a.colour;
  if (a.fit_colours) fit_colours();
  if (a.ui_scale) ex_.ui_scale = *a.ui_scale;
  for (const Action key : a.keys) perform(key);
  if (a.go_to) go_to(*a.go_to);
  if (a.save_bookmark) {
    if (save_bookmark(*a.save_bookmark))
      naming_ = BookmarkNaming{};
    else
      naming_.focus = true;  // the status says why; the name stays to be mended
  }
  if (a.measure_balance)
    if (gpu_.has_renderer()) sweep_.request(ex_.jobs, gpu_, sass());
  if (a.tile_order) {
    // Made now or once a job gives the renderer back; either moves its generation, and the
    // frame is rendered again.
    const TileOrder order = *a.tile_order;
    gpu_.change([order](GpuRenderer& g) { g.set_tile_order(order); });
    ex_.render_ms.clear();
  }
}

void App::handle_input() {
  ImGuiIO& io = ImGui::GetIO();
  const auto [fw, fh] = window_.framebuffer_size();
  const auto [ww, wh] = window_.size();
  if (fw <= 0 || fh <= 0 || ww <= 0) return;
  const double px_scale = static_cast<double>(fw) / ww;  // window to framebuffer pixels
  if (!io.WantCaptureMouse) {
    // In the pixels of the area beside the panel, which the view is of.
    const int left = view_left_, w = fw - left;
    View v = ex_.view;
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f))
      v = pan_by_pixels(v, io.MouseDelta.x * px_scale, io.MouseDelta.y * px_scale, w, fh);
    if (io.MouseWheel != 0)
      v = zoom_about(v, std::pow(1.2, io.MouseWheel), io.MousePos.x * px_scale - left,
                     io.MousePos.y * px_scale, w, fh);
    ex_.set_view(v);
  }
  // Shortcuts work unless a text field is being typed into: ImGui's WantCaptureKeyboard is also
  // true whenever one of its windows merely has focus, which swallowed P, S, D after a click on
  // the panel. Keys come as queued presses, so none is lost to a long frame.
  const std::vector<KeyPress> keys = window_.take_key_presses();
  if (io.WantTextInput) {
    if (naming_.active)
      for (const KeyPress& k : keys)
        if (!naming_.enter && !naming_.escape) {  // the first ends the naming
          naming_.enter = k.key == GLFW_KEY_ENTER || k.key == GLFW_KEY_KP_ENTER;
          naming_.escape = k.key == GLFW_KEY_ESCAPE;
        }
    return;
  }
  for (const KeyPress& k : keys)
    if (const auto b = find_binding(k.key, k.mods, k.repeat)) perform(b->action, b->index);
}

void App::perform(Action a, int index) {
  const auto [fw, fh] = window_.framebuffer_size();
  // The view's own pixels: those of the area beside the panel, whose centre zooms stay on.
  const int w = std::max(fw - std::max(view_left_, 0), 1);
  View v = ex_.view;
  const double step = 0.1 * w;  // arrows move a tenth of the view
  switch (a) {
    case Action::Pan: {
      const double dx[] = {step, -step, 0, 0}, dy[] = {0, 0, step, -step};
      v = pan_by_pixels(v, dx[index], dy[index], w, fh);
      break;
    }
    case Action::ZoomIn: v = zoom_about(v, 1.5, w / 2.0, fh / 2.0, w, fh); break;
    case Action::ZoomOut: v = zoom_about(v, 1 / 1.5, w / 2.0, fh / 2.0, w, fh); break;
    case Action::MoreIterations:
    case Action::FewerIterations:
      // The user's own limit: the automatic one would undo a lowering at once.
      v.max_iter = a == Action::MoreIterations ? std::min(v.max_iter * 2, kMaxIterations)
                                               : std::max(v.max_iter / 2, 1u);
      if (ex_.auto_iters) ex_.status = "automatic iterations off (the panel turns them back on)";
      ex_.auto_iters = false;
      break;
    case Action::Variant:
      if (static_cast<std::size_t>(index) < all_variants().size())
        ex_.set_variant(all_variants()[index].id);
      break;
    case Action::StepVariant: {
      const int count = static_cast<int>(all_variants().size());
      const int place = static_cast<int>(ex_.own_variant) + (index == 0 ? count - 1 : 1);
      ex_.set_variant(all_variants()[place % count].id);
      break;
    }
    case Action::PinVariant:
      ex_.pin_variant = !ex_.pin_variant;
      ex_.status = ex_.pin_variant ? "variant pinned: kept at any depth"
                                   : "variant unpinned: df64 or fp64 past float, "
                                     "perturbation past them, as the view needs";
      break;
    case Action::Home: go_to(ex_.home); return;
    case Action::Back:
    case Action::Forward:
      if (const auto s = a == Action::Back ? places_.back() : places_.forward())
        show(*s);
      else
        ex_.status = a == Action::Back ? "back: no place before this one"
                                       : "forward: no place after this one";
      return;
    case Action::CopyView: {
      // With the size of what the view fills, so that render given the line writes what is seen.
      // Pinned (K), with --pin. Where the window renders with another variant than render would
      // choose afresh (it keeps a deeper one until the shallower holds at half the span, or the
      // shallower until it no longer holds), the one it renders with, pinned.
      ViewState s = view_state();
      bool pin = ex_.pin_variant;
      if (!pin && precision_.variant != s.variant &&
          choose_precision(ex_.view, w, std::max(fh, 1), s.variant, s.variant, false,
                           gpu_.has_renderer() ? facts_.cc : std::nullopt)
                  .variant != precision_.variant) {
        s.variant = precision_.variant;
        pin = true;
      }
      glfwSetClipboardString(window_.get(), format_view_text(s, w, fh, pin).c_str());
      char text[200];
      std::snprintf(text, sizeof text,
                    "view copied with its size beside the panel, %dx%d: mandelpipe render "
                    "--out FILE.png and the line write what you see",
                    w, fh);
      ex_.status = text;
      break;
    }
    case Action::PasteView: paste_view(); return;
    case Action::SaveBookmark: {
      naming_.open = naming_.focus = ex_.show_panel = true;
      // Letters typed after B within this frame belong to the name.
      const ImVector<ImWchar>& typed = ImGui::GetIO().InputQueueCharacters;
      const auto b =
          std::find_if(typed.begin(), typed.end(), [](ImWchar c) { return c == 'b' || c == 'B'; });
      naming_.typed_early.assign(b == typed.end() ? typed.end() : b + 1, typed.end());
      break;
    }
    case Action::NextPalette:
      ex_.palette = static_cast<int>((ex_.palette + 1) % palettes_.size());
      break;
    case Action::Panel:
      ex_.show_panel = !ex_.show_panel;
      // Nothing keeps the keyboard once the panel goes or comes back.
      ImGui::SetWindowFocus(nullptr);
      break;
    case Action::Help: ex_.show_help = !ex_.show_help; break;
    case Action::Overlay:
      ex_.show_overlay = !ex_.show_overlay;
      overlay_.clear();
      // The image on screen is the last frame's while none is being rendered.
      if (ex_.show_overlay && !pipeline_.refining()) {
        ask_kernel_parts();
        show_kernel_parts(nullptr);
      }
      break;
    case Action::Sass: ex_.show_sass = !ex_.show_sass; break;
    case Action::Divergence:
      ex_.divergence = !ex_.divergence;
      // Deep frames on the CPU path write no per-warp figures: said, rather than a map of the
      // last plain one.
      if (ex_.divergence && precision_.perturbation && !pipeline_.on_gpu())
        ex_.status =
            "divergence (D): frames by perturbation record it on the CUDA path only; the CPU "
            "path renders them a row at a time, with no warps";
      break;
    case Action::Compare:
      if (!gpu_.has_renderer()) {  // said where it is seen, not silently ignored
        ex_.status = "compare (C) times the variants' kernels: it needs the CUDA path";
        ex_.show_panel = true;
      } else if (float_precision(window_view(), std::max(fw, 1), std::max(fh, 1),
                                 variant_info(VariantId::Fp64).mantissa_bits)
                     .exhausted) {  // past double: no plain variant resolves the view
        ex_.status =
            "compare (C) times every variant at a view all of them resolve: here only the "
            "perturbation variants do; mandelpipe bench --view X,Y,SPAN,ITERS times them with and "
            "without the approximation";
        ex_.show_panel = true;
      } else if (const char* busy = ex_.measuring()) {
        ex_.status = std::string("compare (C) not started: ") + busy + " running";
      } else {
        queue_compare();
      }
      break;
    case Action::Experiments: ex_.show_experiments = !ex_.show_experiments; break;
    case Action::Vsync:
      ex_.vsync = !ex_.vsync;
      window_.set_vsync(ex_.vsync);
      break;
    case Action::Capture: capture_waiting_ = true; break;
    case Action::UiLarger: ex_.ui_scale = std::min(ex_.ui_scale + kUiScaleStep, kMaxUiScale); break;
    case Action::UiSmaller:
      ex_.ui_scale = std::max(ex_.ui_scale - kUiScaleStep, kMinUiScale);
      break;
    case Action::Quit: window_.close(); break;
  }
  ex_.set_view(v);
}

ViewState App::view_state() const {
  return {ex_.view, ex_.own_variant, palettes_[ex_.palette].name, ex_.colour};
}

void App::show(const ViewState& s) {
  ex_.set_view(s.view);
  ex_.set_variant(s.variant);
  for (std::size_t i = 0; i < palettes_.size(); ++i)
    if (palettes_[i].name == s.palette) ex_.palette = static_cast<int>(i);
  ex_.colour = s.colour;
}

void App::go_to(const ViewState& target) {
  places_.visit(view_state());
  show(target);
  places_.visit(view_state());
}

void App::go_to(const View& view) {
  ViewState s = view_state();
  s.view = view;
  go_to(s);
}

void App::paste_view() {
  const char* text = glfwGetClipboardString(window_.get());
  if (!text) {
    ex_.status = "paste: the clipboard holds no text";
    return;
  }
  // A Kalles Fraktaler location's text (Re:, Im:, Zoom: lines) or the view's command line.
  const std::string_view t = text;
  const bool kfr = t.find("Re:") != std::string_view::npos && t.find("Zoom:") != t.npos;
  const auto [fw, fh] = window_.framebuffer_size();
  const int w = std::max(fw - std::max(view_left_, 0), 1);
  const ViewTextResult r =
      kfr ? parse_kfr_view(t, view_state(), w, std::max(fh, 1)) : parse_view_text(t, view_state());
  if (!r.ok) {
    ex_.status = "paste: " + r.error;
    return;
  }
  go_to(r.state);
  ex_.status = kfr ? "location pasted" : "view pasted";
  if (r.pin && !ex_.pin_variant) {
    ex_.pin_variant = true;
    ex_.status += " (--pin: the variant pinned, as K does)";
  }
  if (r.iters_given && ex_.auto_iters) {
    ex_.auto_iters = false;
    ex_.status += " (its --iters is the limit: automatic iterations off)";
  }
  if (!r.note.empty()) ex_.status += " (" + r.note + ")";
  if (!r.left_aside.empty()) {
    std::string names;
    for (const std::string& n : r.left_aside) names += (names.empty() ? "" : ", ") + n;
    ex_.status += " (" + names + " left aside: the window keeps its size and writes no file)";
  }
}

bool App::save_bookmark(const std::string& name) {
  const std::string why = user_bookmarks_.add({name, ex_.view});
  ex_.status = why.empty() ? "bookmark saved to " + user_bookmarks_.file().string() : why;
  return why.empty();
}

void App::apply_precision() {
  const auto [fw, fh] = window_.framebuffer_size();
  // Into or out of deep views the view is the same, but what renders it is not: the frame's key
  // says which.
  precision_ = choose_precision(window_view(), std::max(fw, 1), std::max(fh, 1), ex_.variant,
                                ex_.own_variant, ex_.pin_variant,
                                gpu_.has_renderer() ? facts_.cc : std::nullopt, ex_.view.span);
  ex_.show_variant(precision_.variant);
}

void App::queue_compare() {
  const auto [fw, fh] = window_.framebuffer_size();
  compare_.request(ex_, gpu_, window_view(), fw, fh, sass(), counters_.probe());
}

int App::view_left(int fb_width) const {
  const auto [ww, wh] = window_.size();
  if (!ex_.show_panel || ww <= 0) return 0;
  const double px = static_cast<double>(fb_width) / ww;  // window to framebuffer pixels
  return std::clamp(static_cast<int>(std::lround(Layout::current().beside_panel().x * px)), 0,
                    fb_width / 2);
}

View App::window_view() const {
  return whole_window_view(ex_.view, window_.framebuffer_size().first, std::max(view_left_, 0));
}

}  // namespace mp
