// The interactive window: explore the set, switch variants live, watch the measurements. The
// App owns the windows and runs the frame: input, render, measure, draw the windows, then the
// jobs they queued.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/banner.h"
#include "app/compare_window.h"
#include "app/experiments_window.h"
#include "app/explorer.h"
#include "app/history.h"
#include "app/imgui_layer.h"
#include "app/kernel_parts_feed.h"
#include "app/key_bindings.h"
#include "app/layout.h"
#include "app/overlay.h"
#include "app/panel.h"
#include "app/sweep_window.h"
#include "app/window.h"
#include "cli/options.h"
#include "cli/view_text.h"
#include "gl/colourizer.h"
#include "gl/frame_pipeline.h"
#include "gl/gpu_timer.h"
#include "io/bookmark_store.h"
#include "io/sass_loader.h"
#include "io/settings.h"
#include "model/ab_recorder.h"
#include "model/auto_iterations.h"
#include "model/bookmarks.h"
#include "model/metrics.h"
#include "model/pipe_rates.h"
#include "model/precision_choice.h"
#include "model/view_history.h"
#include "session/counter_feed.h"
#include "session/deep_session.h"
#include "session/device.h"
#include "session/frame_key.h"
#include "session/frame_report.h"
#include "session/sass_listings.h"

namespace mp {

class App {
 public:
  explicit App(const WindowOptions& o);
  ~App();
  int run();

 private:
  void render_frame();
  // This frame's share of a view's image: a plain frame's slice or launch, or a deep frame's
  // band; a frame other than the one shown (frame_start) starts first.
  void render_image(int fw, int fh, bool b_half);
  // Before a step of `job` starts on the run queue's worker: the window lends it the GPU
  // renderer, and lets go of what else it shares with it.
  void lend_gpu(const std::string& job);
  // Once no step is on the worker, the GPU renderer back: the controls' changes made then.
  void sync_lease();
  void handle_input();
  // What the panel's controls asked for this frame.
  void act_on(const PanelActions& a);
  // What a key (key_bindings.h) or the panel's button for it does; `index`: which of the
  // binding's keys (the direction, the variant).
  void perform(Action a, int index = 0);
  // The place on screen, and going to one: the view, variant, palette and colours.
  ViewState view_state() const;
  void show(const ViewState& s);
  // A jump (a bookmark, a paste, Home): kept in the history on both sides, so that Back returns.
  void go_to(const ViewState& target);
  void go_to(const View& view);
  void paste_view();
  bool save_bookmark(const std::string& name);
  void draw_windows();
  // A finished frame's measurement: added to the totals, made into the frame's report (its
  // metrics and pipe loads, the counters' figures, a deep frame's own figures) that the panel,
  // overlay and capture read.
  void record_frame(const gl::FrameMeasurement& m,
                    const std::optional<DeepStats>& deep = std::nullopt);
  // The whole-kernel model of the last frame for the overlay (kernel_parts_feed.h): what it is
  // of, asking for it, and the overlay's rows and lines once it is there.
  KernelPartsFeed::Of kernel_parts_of() const;
  // Whether the frame shown has a whole-kernel model to ask for: a plain variant's, or a deep
  // frame's that iterated every step (the bilinear tables' look-ups are not modelled).
  bool frame_has_parts() const;
  void ask_kernel_parts();
  void show_kernel_parts(const CounterFigures* fresh_counters);
  void print_summary() const;  // --frames: what the frames cost
  // The window's back buffer, UI included, as PNG; --screenshot and F12 (with its sidecar).
  std::string screenshot_png() const;
  void take_screenshot(const std::string& path);
  void capture_with_sidecar();
  // F12 was pressed while the frame was still drawing: the capture is taken once it is whole, so
  // that a picture never shows a frame half refined.
  bool capture_waiting_ = false;
  void capture_when_whole();
  void queue_compare();
  // Automatic precision: the variant to render at this view, from the user's own.
  void apply_precision();
  const LoadedSass* sass() const { return sass_.get(); }
  std::string mix_source() const;
  std::string counters_source(bool brief) const;
  // The overlay's line on the newest stall reading (the frame's leading stall reason), or why
  // there is none; the SASS view's reading and its source.
  StallLine stalls_line() const;
  SassStalls sass_stalls() const;
  // What measures the GPU on the run queue's worker now (an experiment, the compare, the sine
  // sweep), as the window names it; nothing while none does.
  std::optional<std::string> gpu_borrower() const;
  // While one does: that the image waits for it, and since when; else "".
  std::string paused_for_job() const;
  // The framebuffer pixels at the left that the panel covers (0 while it is hidden): the view is
  // of the area right of them (view.h, whole_window_view), and `view_left_` last frame's.
  int view_left(int fb_width) const;
  // The view of the whole window, which renders (ex_.view is of the area beside the panel).
  View window_view() const;
  // The frame asked for now, at the surface's size sw x sh: what render_image compares with the
  // one shown.
  FrameKey wanted_key(int sw, int sh) const;

  WindowOptions opts_;
  std::string config_problem_;  // why there is no configuration folder ("" where there is one)
  std::filesystem::path config_;
  std::string settings_warning_;
  Settings settings_;
  int palette_at_start_ =
      0;  // the palette shown first: settings keep an unknown name until changed
  DeviceChoice device_;
  DeviceFacts facts_;  // the device's architecture and pipe rates, worked out once
  std::vector<Palette> palettes_;
  std::vector<Bookmark> bookmarks_;
  BookmarkStore user_bookmarks_{user_bookmarks_path(), config_problem_};
  ViewHistory places_;     // Back and Forward
  BookmarkNaming naming_;  // B: the name typed in the panel
  CentreLines centre_lines_;
  SassListings sass_;  // read on a worker at start; cancelled however App ends

  GlfwSession glfw_;
  Window window_;
  ImGuiLayer imgui_;
  // The session's GPU renderer (none on the CPU path): the window's frames borrow it for each
  // launch while no job on the run queue's worker has it.
  GpuLease gpu_;
  gl::FramePipeline pipeline_;
  // Deep views (past double): perturbation, its reference made on a worker.
  DeepSession deep_;
  // The frame whose image the surface holds (or is refining towards); none before the first.
  std::optional<FrameKey> shown_;
  AutoIterations auto_iters_;
  long deep_frames_ = 0;             // finished by perturbation, for the --frames summary
  std::optional<View> auto_anchor_;  // the view the automatic limit last started afresh at
  // A finished frame's edge, for the automatic iteration limit: raised (a new view, so a new
  // frame) while the edge reaches it.
  void adjust_iterations();
  void fit_colours();
  gl::Colourizer colourizer_;

  // Before ex_: an experiment on the run queue's worker reads the counters until it ends, and
  // the queue waits for it when it goes.
  CounterFeed counters_;
  Explorer ex_;
  PrecisionChoice precision_;             // the variant rendered and why, this frame
  int palette_shown_ = -1;                // the palette the colourizer holds
  bool fit_view_ = false;                 // fit the whole set beside the panel at the start
  int view_left_ = -1;                    // view_left() last frame; -1 before the first
  float laid_out_scale_ = 0;              // the UI size the windows were last placed for
  WindowPlaces window_places_;            // where each window is, from frame to frame
  std::pair<int, int> drawn_size_{0, 0};  // the framebuffer size the last frame was drawn at

  // The windows besides the panel (a function of the Explorer) and the banner, whose last
  // frame's lines the --frames summary gives.
  std::vector<BannerLine> banner_;
  PanelFit panel_fit_;  // for the --frames summary
  PipeOverlay overlay_;
  KernelPartsFeed parts_;
  CompareWindow compare_;
  ExperimentsWindow experiments_;
  SweepWindow sweep_;

  std::optional<std::uint64_t> counter_reading_;  // open over the frame being rendered
  bool reading_asked_ = false;  // the counters were asked whether to read this frame
  // The last finished frame's report: what the panel, the overlay and F12 read.
  std::shared_ptr<const FrameReport> report_;
  // The report is of another view, variant or size than the frame rendering now.
  bool report_of_previous_view() const;
  // The CPU path: each variant's last frame time at the view and size timed (the panel says
  // which was fastest), and which that is.
  std::map<VariantId, double> cpu_ms_here_;
  FrameOf timed_here_;  // its place (the variant unused)
  std::string fastest_here() const;
  History overlay_ms_;         // CPU time the pipe overlay took per frame (model + drawing)
  float overlay_cost_ms_ = 0;  // this frame's share so far
  // GPU time of the UI's draw (every ImGui window): with and without the overlay, the
  // overlay's GPU share; its CPU share is overlay_ms_.
  gl::GpuTimer ui_timer_;
  std::string ui_timed_on_;  // what the timer queries time: the GPU, or the CPU of a software GL
  History ui_gpu_ms_;
  struct Totals {  // over the whole run, for the --frames summary
    double frame_ms = 0, render_ms = 0, overlay_ms = 0, ui_gpu_ms = 0, longest_frame_ms = 0;
    long frames = 0, renders = 0, overlays = 0, ui_gpu_frames = 0, slices = 0, slow_frames = 0;
    double mean_frame_ms() const { return frames ? frame_ms / frames : 0; }
    double mean_render_ms() const { return renders ? render_ms / renders : 0; }
    long mean_slices() const { return renders ? (slices + renders / 2) / renders : 0; }
    double mean_overlay_ms() const { return overlays ? overlay_ms / overlays : 0; }
    double mean_ui_gpu_ms() const { return ui_gpu_frames ? ui_gpu_ms / ui_gpu_frames : 0; }
  } totals_;
  // Where a frame's time went, start to start: its own rendering and drawing (of which the
  // image's kernels, bands and references taken), the queued work
  // after it, the buffer swap, and the next frame's wait for events. The longest frame's are kept
  // for the summary, so that a slow frame says what made it slow.
  struct Phases {
    double render = 0, image = 0, jobs = 0, swap = 0, events = 0;  // image: part of render
  };
  Phases phases_, longest_phases_;
  AbRecorder ab_;  // --overlay-ab, --counters-ab
  double last_frame_start_ = 0;
  long long frames_done_ = 0;
};

}  // namespace mp
