// The interactive window: explore the set, switch variants live, watch the measurements.
#pragma once

#include <deque>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "app/history.h"
#include "app/imgui_layer.h"
#include "app/overlay.h"
#include "app/window.h"
#include "cli/options.h"
#include "commands/common.h"
#include "counters/pm_sampler.h"
#include "gl/colorizer.h"
#include "gl/frame_pipeline.h"
#include "gl/gpu_timer.h"
#include "io/experiment_report.h"
#include "io/sass_loader.h"
#include "io/settings.h"
#include "model/bookmarks.h"
#include "model/metrics.h"
#include "model/pipe_rates.h"

namespace mp {

class App {
 public:
  explicit App(const Options& o);
  ~App();
  int run();

 private:
  void handle_input();
  void render_frame();
  void measure(const gl::FrameMeasurement& m);
  void draw_panel();
  void draw_counters_section(const GpuFrameStats& s);
  void draw_compare_window();
  void draw_precision_banner();
  void take_screenshot(const std::string& path);
  std::string screenshot_png() const;  // the window's back buffer, UI included, as PNG
  void capture_with_sidecar();         // F12
  void run_compare();
  bool compare_is_current() const;  // the compare table is of the view and size on screen
  void draw_experiments_window();
  void draw_sweep_window();
  std::filesystem::path capture_path(const std::string& stem, const char* ext) const;
  const LoadedSass* sass() const { return sass_ && sass_->ok() ? &*sass_ : nullptr; }
  std::string mix_source() const;
  // Where the counter figures come from, or why there are none; brief: the overlay's short form.
  std::string counters_source(bool brief) const;
  bool take_counter_figures();  // the newest figures the sampler has finished; true if new
  // 10 x compute capability of the GPU in use (sm_90 mixes where there is none).
  int sm() const {
    return device_.device ? device_.device->cc_major * 10 + device_.device->cc_minor : 90;
  }

  Options opts_;
  std::filesystem::path config_;
  std::string settings_warning_;
  Settings settings_;
  DeviceChoice device_;
  std::optional<PipeRates> rates_;
  std::vector<Palette> palettes_;
  std::vector<Bookmark> bookmarks_;
  std::future<LoadedSass> sass_loading_;
  std::optional<LoadedSass> sass_;

  GlfwSession glfw_;
  Window window_;
  ImGuiLayer imgui_;
  gl::FramePipeline pipeline_;
  gl::Colorizer colorizer_;

  View view_;
  VariantId variant_;
  int palette_index_ = 0;
  bool vsync_;
  bool live_;  // re-render every frame (live measurement) or only when something changed
  bool dirty_ = true;
  std::pair<int, int> drawn_size_{0, 0};  // the framebuffer size the last frame was drawn at
  bool show_panel_ = true;
  bool show_overlay_;
  bool show_sass_;
  bool show_divergence_;
  bool compare_requested_ = false;
  bool show_experiments_ = false;
  int experiment_index_ = 0;
  bool experiment_requested_ = false;
  std::optional<ExperimentReport> experiment_;
  std::string experiment_error_;
  bool capture_requested_ = false;
  // sin-ratio's balance point: the sweep of 0..4 __sinf per step, run on request.
  bool sweep_requested_ = false;
  bool show_sweep_ = false;
  std::vector<SineSweepRow> sweep_;
  std::string sweep_error_;
  // A result came after its window opened: fit the window's height to it once.
  bool refit_sweep_ = false, refit_experiments_ = false;

  // The GPU's own pipe counters (CUPTI PM sampling): frames launched whose figures are not in
  // yet (reading, frame number), and the newest figures with their frame.
  std::unique_ptr<counters::PmSampler> counters_;
  struct CounterReading {
    std::uint64_t reading = 0;
    long long frame = 0;
    double modelled_instructions = 0;  // of the frame's step loop, for withhold_short_counts
  };
  std::deque<CounterReading> counter_readings_;
  std::optional<CounterFigures> counter_figures_;
  long long counter_frame_ = -1;

  gl::FrameMeasurement last_;
  std::optional<Metrics> last_metrics_;
  PipeOverlay overlay_;
  History frame_ms_, render_ms_;
  History overlay_ms_;         // CPU time the pipe overlay took per frame (model + drawing)
  float overlay_cost_ms_ = 0;  // this frame's share so far
  // GPU time of the UI's draw (every ImGui window): with and without the overlay, the
  // overlay's GPU share; its CPU share is overlay_ms_.
  gl::GpuTimer ui_timer_;
  History ui_gpu_ms_;
  struct Totals {  // over the whole run, for the --frames summary
    double frame_ms = 0, render_ms = 0, overlay_ms = 0, ui_gpu_ms = 0;
    long frames = 0, renders = 0, overlays = 0, ui_gpu_frames = 0;
    // --overlay-ab, by whether the overlay was shown ([0] without, [1] with): frame times, and
    // the UI's end of frame (ImGui's render and the GL backend's calls) on the CPU and, from
    // the GL timer query that may lag a frame or two, on the GPU.
    std::vector<double> ab_frame_ms[2];
    std::vector<std::vector<double>> ab_blocks;  // the same frame times, by block
    double ab_ui_cpu_ms[2] = {0, 0}, ab_ui_gpu_ms[2] = {0, 0};
    long ab_ui_frames[2] = {0, 0}, ab_ui_gpu_frames[2] = {0, 0};
    double ab_kernel_ms[2] = {0, 0};  // the render kernel's event time, by half
    long ab_kernels[2] = {0, 0};
    double mean_frame_ms() const { return frames ? frame_ms / frames : 0; }
    double mean_render_ms() const { return renders ? render_ms / renders : 0; }
    double mean_overlay_ms() const { return overlays ? overlay_ms / overlays : 0; }
    double mean_ui_gpu_ms() const { return ui_gpu_frames ? ui_gpu_ms / ui_gpu_frames : 0; }
  } totals_;
  std::optional<BenchReport> compare_;
  std::string status_;                              // last capture / save message
  static constexpr long long kOverlayAbBlock = 10;  // --overlay-ab: frames per block
  double last_frame_start_ = 0;
  bool last_frame_b_ = false;  // the frame being timed is in the B half of an A/B run
  // Which half of an A/B run a frame's UI times go to: the overlay's, as drawn, or the counters'.
  int last_frame_ab_b(bool overlay_drawn, bool b_half) const {
    return opts_.counters_ab ? b_half : overlay_drawn;
  }
  bool last_frame_settled_ = false;   // ...and counts for --overlay-ab (not a block's first)
  std::size_t last_frame_block_ = 0;  // ...in this block
  long long frames_done_ = 0;
};

}  // namespace mp
