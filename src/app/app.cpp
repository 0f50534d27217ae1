#include "app/app.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "commands/commands.h"
#include "commands/measure.h"
#include "experiments.h"
#include "gl/offscreen_target.h"
#include "io/counter_columns.h"
#include "io/embedded.h"
#include "io/files.h"
#include "model/median.h"
#include "model/variant_table.h"

namespace mp {
namespace {

// PM sampling interval in the window: decoding costs the counter thread some 60 us of CPU per
// sample whether the GPU is busy or not, so 200 us keeps it near 40% of a core
// (docs/measurements.md); `--counter-interval` trades that against finer samples.
constexpr unsigned kWindowCounterInterval = 200;

std::filesystem::path config_file(const std::filesystem::path& dir, const char* name) {
  return dir.empty() ? std::filesystem::path() : dir / name;
}

Settings initial_settings(const std::filesystem::path& dir, const Options& o, std::string* warn) {
  Settings s = load_settings(config_file(dir, "settings.json"), warn);
  if (o.window_size_given) {
    s.window_width = o.width;
    s.window_height = o.height;
  }
  if (o.palette_given) s.palette = o.palette;
  return s;
}

}  // namespace

App::App(const Options& o)
    : opts_(o),
      config_(config_dir()),
      settings_(initial_settings(config_, o, &settings_warning_)),
      device_(choose_device(o.force_cpu)),
      palettes_(parse_palettes(embedded::palettes_json)),
      bookmarks_(parse_bookmarks(embedded::bookmarks_json)),
      glfw_(),
      window_(settings_.window_width, settings_.window_height, "mandelpipe"),
      imgui_(window_.get(), window_.content_scale(),
             config_.empty() ? "" : config_file(config_, "imgui.ini").string()),
      pipeline_(device_.device, device_.cpu_reason, o.present),
      view_(o.view),
      variant_(o.variant),
      vsync_(o.vsync),
      live_(device_.device.has_value() || o.frames > 0),
      show_overlay_(o.overlay),
      show_sass_(o.sass_view),
      show_divergence_(o.divergence) {
  // The SASS of the kernels this process runs, for the overlay and the SASS view: read off
  // the UI thread, since cuobjdump takes a moment.
  sass_loading_ = std::async(std::launch::async, load_kernel_sass, self_executable(), sm());
  if (!settings_warning_.empty())
    std::cerr << "mandelpipe: " << settings_warning_ << " (left as it is; fix or delete it)\n";
  if (device_.device) rates_ = pipe_rates(device_.device->cc_major, device_.device->cc_minor);
  for (std::size_t i = 0; i < palettes_.size(); ++i)
    if (palettes_[i].name == settings_.palette) palette_index_ = static_cast<int>(i);
  if (palettes_[palette_index_].name != settings_.palette && o.palette_given)
    throw ExitError(2, "--palette: unknown '" + settings_.palette + "'");
  colorizer_.set_palette(palettes_[palette_index_]);
  if (settings_.window_x && settings_.window_y && !o.window_size_given)
    window_.move_to(*settings_.window_x, *settings_.window_y);
  window_.set_vsync(vsync_);
  if (pipeline_.gpu() && !o.no_counters) {
    counters::SamplerOptions so;
    so.device_index = device_.device->index;
    // For tests and screenshots of the refusal banner: CUPTI is made to answer "insufficient
    // privileges" at the named step (one of PmSampler::steps()).
    if (const char* step = std::getenv("MANDELPIPE_COUNTERS_REFUSE"))
      so.fault = counters::Fault{step, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES};
    if (std::getenv("MANDELPIPE_COUNTERS_TRACE"))
      so.trace = [](const std::string& line) { std::cerr << "counters: " << line << "\n"; };
    so.interval_us = o.counter_interval_us > 0 ? static_cast<unsigned>(o.counter_interval_us)
                                               : kWindowCounterInterval;
    counters_ = std::make_unique<counters::PmSampler>(so);
    if (!counters_->unavailable().empty())
      std::cerr << "mandelpipe: " << counters_->unavailable() << "\n";
  }
  if (!o.open_experiment.empty()) {
    experiment_index_ = find_experiment(o.open_experiment, "--open-experiment");
    show_experiments_ = true;
    experiment_requested_ = pipeline_.gpu() != nullptr;  // else the window says why not
  }
}

App::~App() {
  if (config_.empty() || !settings_warning_.empty())
    return;  // never overwrite a file we could not read
  const auto [w, h] = window_.size();
  const auto [x, y] = window_.position();
  settings_.window_width = w;
  settings_.window_height = h;
  settings_.window_x = x;
  settings_.window_y = y;
  settings_.palette = palettes_[palette_index_].name;
  try {
    save_settings(config_file(config_, "settings.json"), settings_);
  } catch (const std::exception& e) {
    std::cerr << "mandelpipe: settings not saved: " << e.what() << "\n";
  }
}

int App::run() {
  last_frame_start_ = glfwGetTime();
  int settle_frames = 0;
  for (;;) {
    if (live_ || dirty_)
      glfwPollEvents();
    else
      glfwWaitEventsTimeout(0.25);  // idle: nothing changes, nothing to redraw
    bool last = window_.should_close() || (opts_.frames > 0 && frames_done_ + 1 >= opts_.frames);
    // A scripted screenshot shows the SASS view and the SASS-based overlay as a user sees them
    // once cuobjdump is done, not the "reading SASS..." of the first second: wait for it, then
    // draw two frames more, since ImGui fits a window to the content of the frame before.
    if (last && !opts_.screenshot.empty() && sass_loading_.valid()) {
      sass_loading_.wait();
      settle_frames = 2;
    }
    if (settle_frames > 0 && !window_.should_close()) {
      --settle_frames;
      last = false;
    }
    render_frame();
    ++frames_done_;
    if (capture_requested_) {
      capture_requested_ = false;
      capture_with_sidecar();
    }
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
  }
  if (opts_.frames > 0)  // for scripted runs: what the frames cost, all of them
    std::cout << "frames " << frames_done_ << ", mean frame " << totals_.mean_frame_ms()
              << " ms (start to start), mean " << (last_.gpu ? "kernel " : "CPU render ")
              << totals_.mean_render_ms() << " ms"
              << (totals_.overlays ? ", pipe overlay " + std::to_string(totals_.mean_overlay_ms()) +
                                         " ms CPU per frame"
                                   : std::string())
              << ", UI draw " << totals_.mean_ui_gpu_ms() << " ms GPU per frame"
              << (counters_ && counters_->unavailable().empty()
                      ? ", counter thread " +
                            std::to_string(100 * counters_->worker_cpu_share(true)) + "% of a core"
                      : std::string())
              << "\n";
  if (opts_.frames > 0)  // where the run ended up: what scripted key presses did
    std::cout << "final view: variant " << variant_info(variant_).name << ", center "
              << view_.center_x << "," << view_.center_y << ", span " << view_.span << ", iters "
              << view_.max_iter << "\n";
  if (opts_.overlay_ab || opts_.counters_ab) {
    // Means, and medians: the X server now and then stretches a frame, which moves a mean.
    auto mean = [](double sum, long n) { return n ? sum / n : 0.0; };
    const char* ab_name = opts_.counters_ab ? "counters" : "overlay";
    const std::vector<double>(&f)[2] = totals_.ab_frame_ms;
    auto sum = [](const std::vector<double>& v) {
      return std::accumulate(v.begin(), v.end(), 0.0);
    };
    if (f[0].empty() || f[1].empty()) {
      std::cout << ab_name << " A/B: too few frames to time both halves\n";
      return 0;
    }
    const double off = mean(sum(f[0]), f[0].size()), on = mean(sum(f[1]), f[1].size());
    const double off_median = median(f[0]), on_median = median(f[1]);
    // Block by block as well: each block with the overlay against the blocks on either side.
    const std::optional<double> paired = alternating_blocks_difference(totals_.ab_blocks);
    std::cout << ab_name << " A/B: " << f[0].size() << " frames without, " << f[1].size()
              << " with: mean " << off << " -> " << on << " ms per frame (" << (on / off - 1) * 100
              << "%), median " << off_median << " -> " << on_median << " ms ("
              << (on_median / off_median - 1) * 100 << "%), block by block ";
    if (paired)
      std::cout << (*paired >= 0 ? "+" : "") << *paired << " ms (" << *paired / off_median * 100
                << "%)";
    else
      std::cout << "n/a (too few blocks)";
    std::cout << "; overlay's own CPU " << totals_.mean_overlay_ms() << " ms; UI end of frame CPU "
              << mean(totals_.ab_ui_cpu_ms[0], totals_.ab_ui_frames[0]) << " -> "
              << mean(totals_.ab_ui_cpu_ms[1], totals_.ab_ui_frames[1]) << " ms, GPU "
              << mean(totals_.ab_ui_gpu_ms[0], totals_.ab_ui_gpu_frames[0]) << " -> "
              << mean(totals_.ab_ui_gpu_ms[1], totals_.ab_ui_gpu_frames[1]) << " ms; kernel "
              << mean(totals_.ab_kernel_ms[0], totals_.ab_kernels[0]) << " -> "
              << mean(totals_.ab_kernel_ms[1], totals_.ab_kernels[1]) << " ms (events)";
    if (opts_.counters_ab && counters_)
      std::cout << "; counter thread " << 100 * counters_->worker_cpu_share(true) << "% of a core";
    std::cout << "\n";
  }
  return 0;
}

void App::measure(const gl::FrameMeasurement& m) {
  last_ = m;
  render_ms_.push(static_cast<float>(m.render_ms()));
  totals_.render_ms += m.render_ms();
  ++totals_.renders;
  last_metrics_.reset();
  if (!m.gpu || !rates_) return;
  const GpuFrameStats& s = m.gpu_stats;
  const InstrMix per_step = per_step_mix(variant_, sm(), sass(), s.recording);
  if (!counter_readings_.empty() && counter_readings_.back().frame == frames_done_)
    counter_readings_.back().modelled_instructions =
        per_step.total() * static_cast<double>(s.warp_iters);
  const bool fresh_counters = take_counter_figures();
  last_metrics_ = derive_metrics(*rates_, device_.device->sm_count, per_step, frame_numbers(s));
  if (!show_overlay_) return;
  const auto t0 = std::chrono::steady_clock::now();
  const VariantInfo& v = variant_info(variant_);
  const LoopListing* loop = sass() ? sass()->loop(variant_, s.recording) : nullptr;
  const double heavy = loop ? loop->heavy_only / v.steps_per_check : -1;
  overlay_.update(pipe_loads(*rates_, device_.device->sm_count, per_step, heavy,
                             static_cast<double>(s.warp_iters), static_cast<double>(s.sm_cycles),
                             last_metrics_->clock_ghz),
                  fresh_counters && counter_figures_ ? &*counter_figures_ : nullptr);
  overlay_cost_ms_ +=
      std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool App::take_counter_figures() {
  bool fresh = false;
  while (counters_ && !counter_readings_.empty()) {
    const CounterReading& r = counter_readings_.front();
    std::optional<CounterFigures> f = counters_->take(r.reading, false);
    if (!f) break;  // the oldest is not in yet; the newer ones come after it
    withhold_short_counts(*f, r.modelled_instructions);
    counter_figures_ = std::move(f);
    counter_frame_ = r.frame;
    counter_readings_.pop_front();
    fresh = true;
  }
  // Readings the sampler gave up on are dropped with it, not kept forever.
  while (counter_readings_.size() > 64) counter_readings_.pop_front();
  return fresh;
}

std::string App::counters_source(bool brief) const {
  if (!device_.device) return "counters: need the CUDA path";
  if (!counters_) return "counters: off (--no-counters)";
  if (!counters_->unavailable().empty()) return counters_->unavailable();
  // The overlay's line is short (it is drawn every frame); the panel has the whole source.
  std::string s =
      "counters: " + (brief ? std::string("CUPTI PM sampling") : counters_->description());
  if (counter_frame_ >= 0)
    s += "; frame " + std::to_string(counter_frame_) + " (" +
         std::to_string(frames_done_ - counter_frame_) + " ago)";
  if (brief) return s;
  char cpu[64];
  std::snprintf(cpu, sizeof cpu, "; reading them took %.0f%% of a CPU core over the last second",
                100 * counters_->worker_cpu_share(false));
  return s + cpu;
}

std::string App::mix_source() const {
  if (sass()) return "SASS (" + sass_->source + ")";
  if (sass_) return "declared (" + sass_->source + ")";
  return "declared (reading SASS...)";
}

void App::render_frame() {
  const double now = glfwGetTime();
  if (frames_done_ > 0) {  // the first frame has no previous one to be timed from
    const double ms = (now - last_frame_start_) * 1e3;
    frame_ms_.push(static_cast<float>(ms));
    totals_.frame_ms += ms;
    ++totals_.frames;
    if (last_frame_settled_) {
      totals_.ab_frame_ms[last_frame_b_].push_back(ms);
      auto& blocks = totals_.ab_blocks;
      if (blocks.size() <= last_frame_block_) blocks.resize(last_frame_block_ + 1);
      blocks[last_frame_block_].push_back(ms);
    }
  }
  last_frame_start_ = now;
  // --overlay-ab: blocks of frames with and without the overlay, in turns, so that drift in the
  // frame time (clocks, the X server) falls on both alike. A block's first frames are left out
  // of both: the GPU and the swap may still be on the previous block's frames.
  // --counters-ab: the same, with the counters' sampling stopped and started instead.
  const bool ab = opts_.overlay_ab || opts_.counters_ab;
  const bool b_half = frames_done_ / kOverlayAbBlock % 2 == 1;
  if (opts_.overlay_ab) show_overlay_ = b_half;
  if (opts_.counters_ab && counters_) counters_->pause(!b_half);
  const bool ab_settled = ab && frames_done_ % kOverlayAbBlock >= 3;
  overlay_cost_ms_ = 0;
  if (!sass_ && sass_loading_.valid() &&
      sass_loading_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    sass_ = sass_loading_.get();
  if (compare_requested_) {  // shown as "comparing..." last frame; runs now
    compare_requested_ = false;
    run_compare();
  }
  if (sweep_requested_) {  // likewise
    sweep_requested_ = false;
    try {
      sweep_ = sine_sweep(*pipeline_.gpu(), sass(), 5, 2);
      sweep_error_.clear();
    } catch (const std::exception& e) {
      sweep_error_ = e.what();
    }
    refit_sweep_ = true;
    dirty_ = true;
  }
  if (experiment_requested_) {  // likewise "running..."
    experiment_requested_ = false;
    try {
      experiment_ = run_experiment(experiment_names()[experiment_index_], pipeline_.gpu()->device(),
                                   counters_.get());
      experiment_error_.clear();
    } catch (const std::exception& e) {
      experiment_error_ = e.what();
    }
    refit_experiments_ = true;
    dirty_ = true;
  }

  imgui_.begin_frame();
  handle_input();
  const auto [fw, fh] = window_.framebuffer_size();
  if (std::pair(fw, fh) != drawn_size_) {  // a resize alone redraws
    drawn_size_ = {fw, fh};
    dirty_ = true;
  }
  if (fw > 0 && fh > 0) {
    pipeline_.resize(fw, fh);
    if (live_ || dirty_) {
      const std::uint64_t reading = counters_ ? counters_->begin() : 0;
      const gl::FrameMeasurement fm = pipeline_.render(variant_, view_, show_divergence_);
      if (counters_) {
        counters_->end(reading, fm.gpu ? static_cast<double>(fm.gpu_stats.sm_cycles) : 0);
        counter_readings_.push_back({reading, frames_done_, 0});
      }
      measure(fm);
      if (ab_settled && fm.gpu) {
        totals_.ab_kernel_ms[b_half] += fm.gpu_stats.kernel_ms;
        ++totals_.ab_kernels[b_half];
      }
      dirty_ = false;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fw, fh);
    colorizer_.draw(pipeline_.surface(), settings_.colour,
                    show_divergence_ ? pipeline_.warp_buffer() : nullptr);
  }
  const float scale = window_.content_scale();
  if (show_panel_) draw_panel();
  const bool overlay_drawn = show_overlay_;  // P or the panel may have just changed it
  if (show_overlay_) {
    const auto t0 = std::chrono::steady_clock::now();
    overlay_.draw(last_.gpu ? "Pipe utilisation (P)" : "Pipe utilisation (P): needs the CUDA path",
                  mix_source(), counters_source(true), overlay_ms_.mean(), ui_gpu_ms_.mean(),
                  frame_ms_.mean(), scale);
    overlay_cost_ms_ +=
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
    overlay_ms_.push(overlay_cost_ms_);
    totals_.overlay_ms += overlay_cost_ms_;
    ++totals_.overlays;
  }
  if (show_sass_) {
    // The loop of the kernel the last frame ran: the recording one on a view's first frame and
    // for the divergence view.
    const bool recording = last_.gpu && last_.gpu_stats.recording;
    const LoopListing* l = sass() ? sass()->loop(variant_, recording) : nullptr;
    draw_sass_view(variant_info(variant_), recording, l, sass_ ? sass_->source : "reading SASS...",
                   scale);
  }
  if (compare_) draw_compare_window();
  if (show_experiments_) draw_experiments_window();
  if (show_sweep_) draw_sweep_window();
  draw_precision_banner();
  const auto ui_start = std::chrono::steady_clock::now();
  ui_timer_.begin();
  imgui_.end_frame();
  ui_timer_.end();
  const double ui_cpu_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ui_start)
          .count();
  if (ab_settled) {
    totals_.ab_ui_cpu_ms[last_frame_ab_b(overlay_drawn, b_half)] += ui_cpu_ms;
    ++totals_.ab_ui_frames[last_frame_ab_b(overlay_drawn, b_half)];
  }
  if (const auto ms = ui_timer_.take()) {
    ui_gpu_ms_.push(static_cast<float>(*ms));
    totals_.ui_gpu_ms += *ms;
    ++totals_.ui_gpu_frames;
    if (ab_settled) {
      totals_.ab_ui_gpu_ms[last_frame_ab_b(overlay_drawn, b_half)] += *ms;
      ++totals_.ab_ui_gpu_frames[last_frame_ab_b(overlay_drawn, b_half)];
    }
  }
  last_frame_b_ = last_frame_ab_b(overlay_drawn, b_half);
  last_frame_settled_ = ab_settled;
  last_frame_block_ = static_cast<std::size_t>(frames_done_ / kOverlayAbBlock);
}

void App::handle_input() {
  ImGuiIO& io = ImGui::GetIO();
  const auto [fw, fh] = window_.framebuffer_size();
  const auto [ww, wh] = window_.size();
  if (fw <= 0 || fh <= 0 || ww <= 0) return;
  const double px_scale = static_cast<double>(fw) / ww;  // window to framebuffer pixels
  const View before = view_;

  if (!io.WantCaptureMouse) {
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f))
      view_ = pan_by_pixels(view_, io.MouseDelta.x * px_scale, io.MouseDelta.y * px_scale, fw, fh);
    if (io.MouseWheel != 0)
      view_ = zoom_about(view_, std::pow(1.2, io.MouseWheel), io.MousePos.x * px_scale,
                         io.MousePos.y * px_scale, fw, fh);
  }
  // Shortcuts work unless a text field is being typed into: ImGui's WantCaptureKeyboard is also
  // true whenever one of its windows merely has focus, which swallowed P, S, D after a click on
  // the panel. Keys come as queued presses, so none is lost to a long frame.
  const std::vector<KeyPress> keys = window_.take_key_presses();
  const double step = 0.1 * fw;  // arrows move a tenth of the view
  for (const KeyPress& k : io.WantTextInput ? std::vector<KeyPress>{} : keys) {
    if (k.mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER)) continue;
    // Keys that repeat while held: moving, zooming, the iteration limit.
    switch (k.key) {
      case GLFW_KEY_LEFT: view_ = pan_by_pixels(view_, step, 0, fw, fh); continue;
      case GLFW_KEY_RIGHT: view_ = pan_by_pixels(view_, -step, 0, fw, fh); continue;
      case GLFW_KEY_UP: view_ = pan_by_pixels(view_, 0, step, fw, fh); continue;
      case GLFW_KEY_DOWN: view_ = pan_by_pixels(view_, 0, -step, fw, fh); continue;
      case GLFW_KEY_EQUAL:
      case GLFW_KEY_KP_ADD: view_ = zoom_about(view_, 1.5, fw / 2.0, fh / 2.0, fw, fh); continue;
      case GLFW_KEY_MINUS:
      case GLFW_KEY_KP_SUBTRACT:
        view_ = zoom_about(view_, 1 / 1.5, fw / 2.0, fh / 2.0, fw, fh);
        continue;
      case GLFW_KEY_PAGE_UP:
        view_.max_iter = std::min(view_.max_iter * 2, kMaxIterations);
        continue;
      case GLFW_KEY_PAGE_DOWN: view_.max_iter = std::max(view_.max_iter / 2, 1u); continue;
      default: break;
    }
    if (k.repeat) continue;  // the rest toggle, once a press
    const auto& variants = all_variants();
    const int digit = k.key - GLFW_KEY_1;
    if (digit >= 0 && digit < 9 && static_cast<std::size_t>(digit) < variants.size()) {
      if (variant_ != variants[digit].id) {
        variant_ = variants[digit].id;
        render_ms_.clear();
        dirty_ = true;
      }
      continue;
    }
    switch (k.key) {
      case GLFW_KEY_HOME: view_ = opts_.view; break;
      case GLFW_KEY_V:
        vsync_ = !vsync_;
        window_.set_vsync(vsync_);
        break;
      case GLFW_KEY_TAB:
        show_panel_ = !show_panel_;
        // Nothing keeps the keyboard once the panel goes or comes back.
        ImGui::SetWindowFocus(nullptr);
        break;
      case GLFW_KEY_P:
        show_overlay_ = !show_overlay_;
        overlay_.clear();
        break;
      case GLFW_KEY_S: show_sass_ = !show_sass_; break;
      case GLFW_KEY_D:
        show_divergence_ = !show_divergence_;
        dirty_ = true;
        break;
      case GLFW_KEY_C:
        if (pipeline_.gpu())
          compare_requested_ = true;
        else  // said, not silently ignored
          status_ = "compare (C) times the variants' kernels: it needs the CUDA path";
        break;
      case GLFW_KEY_F12: capture_requested_ = true; break;
      case GLFW_KEY_E: show_experiments_ = !show_experiments_; break;
      case GLFW_KEY_ESCAPE: window_.close(); break;
      default: break;
    }
  }
  if (!(view_ == before)) {
    dirty_ = true;
    if (view_.max_iter != before.max_iter) render_ms_.clear();
  }
}

void App::draw_precision_banner() {
  const auto [fw, fh] = window_.framebuffer_size();
  const bool fp64 = variant_info(variant_).fp64;
  const PrecisionStatus p = float_precision(view_, std::max(fw, 1), std::max(fh, 1), fp64);
  if (!p.exhausted) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + 10),
                          ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("##precision", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                   ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
  ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1),
                     "%s precision exhausted: pixel spacing %.3g is under 4 ulps (%.3g) at "
                     "these coordinates; neighbouring pixels merge.%s",
                     fp64 ? "Double" : "Float", p.pixel_spacing, p.float_ulp,
                     fp64 ? "" : " The fp64 variant (7) goes deeper.");
  ImGui::End();
}

void App::run_compare() {
  const auto [fw, fh] = window_.framebuffer_size();
  std::vector<VariantId> all;
  for (const VariantInfo& v : all_variants()) all.push_back(v.id);
  BenchReport rep;
  rep.device = summarize(pipeline_.gpu()->device(), sass());
  rep.rows = measure_variants(*pipeline_.gpu(), "current", view_, fw, fh, all, 5, 1, sass(),
                              counters_.get());
  compare_ = std::move(rep);
  dirty_ = true;
}

bool App::compare_is_current() const {
  if (!compare_ || compare_->rows.empty()) return false;
  const MeasuredRow& r = compare_->rows.front();
  const auto [fw, fh] = window_.framebuffer_size();
  return r.view == view_ && r.width == fw && r.height == fh;
}

std::filesystem::path App::capture_path(const std::string& stem, const char* ext) const {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  const std::filesystem::path dir = opts_.capture_dir.empty() ? "." : opts_.capture_dir;
  std::filesystem::path p = dir / (stem + "-" + stamp + ext);
  for (int i = 2; std::filesystem::exists(p); ++i)
    p = dir / (stem + "-" + stamp + "-" + std::to_string(i) + ext);
  return p;
}

// F12: the window as the user sees it, plus what produced it, for articles and slides.
void App::capture_with_sidecar() {
  const std::filesystem::path png = capture_path("mandelpipe", ".png");
  try {
    // The window as it is now; written with its sidecar once that is complete, both or neither.
    const std::string image = screenshot_png();
    nlohmann::json j;
    j["image"] = png.filename().string();
    j["view"] = {{"center", {view_.center_x, view_.center_y}},
                 {"span", view_.span},
                 {"iters", view_.max_iter}};
    j["variant"] = variant_info(variant_).name;
    j["renderer"] = pipeline_.renderer_description();
    j["present"] = pipeline_.present_description();
    if (device_.device) {
      j["device"] = {{"name", device_.device->name},
                     {"compute_capability", std::to_string(device_.device->cc_major) + "." +
                                                std::to_string(device_.device->cc_minor)}};
      j["frame"] = to_json(measured_row(*device_.device, variant_, "current", view_,
                                        pipeline_.surface().width(), pipeline_.surface().height(),
                                        1, last_.gpu_stats, sass()));
      j["clock_ghz"] = last_metrics_ ? last_metrics_->clock_ghz : 0.0;
    } else {
      j["frame"] = {{"cpu_ms", last_.cpu_stats.ms}, {"pixel_iters", last_.cpu_stats.pixel_iters}};
    }
    j["instruction_mix"] = mix_source();
    j["counters_source"] = counters_source(false);
    j["counters"] = counter_json(counter_figures_);
    j["counters_frame"] = counter_frame_;
    // The table of every variant belongs with the picture: made now where the one on hand is
    // of another view (the image above is already taken, so it shows the window as it was).
    const bool compared_now = pipeline_.gpu() && !compare_is_current();
    if (compared_now) run_compare();
    if (compare_is_current())
      j["compare"] = nlohmann::json::parse(format_bench(*compare_, OutputFormat::Json));
    write_files_atomic({{sidecar_path(png), j.dump(2) + "\n"}, {png, image}});
    std::cout << "wrote " << png.string() << " and its .json\n";
    status_ = "saved " + png.string() + " and its .json" +
              (compared_now ? ", with every variant compared at this view" : "");
  } catch (const std::exception& e) {
    status_ = std::string("capture failed: ") + e.what();
  }
}

std::string App::screenshot_png() const {
  const auto [fw, fh] = window_.framebuffer_size();
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  const auto rgba = gl::read_pixels_top_first(fw, fh);
  return encode_png(fw, fh, rgba.data());
}

void App::take_screenshot(const std::string& path) {
  write_file_atomic(path, screenshot_png());
  const auto [fw, fh] = window_.framebuffer_size();
  std::cout << "wrote " << path << " (" << fw << "x" << fh << ")\n";
}

}  // namespace mp
