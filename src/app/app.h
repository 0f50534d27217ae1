// The interactive window: explore the set, switch variants live, watch the measurements.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/history.h"
#include "app/imgui_layer.h"
#include "app/settings.h"
#include "app/window.h"
#include "cli/options.h"
#include "commands/common.h"
#include "gl/colorizer.h"
#include "gl/frame_pipeline.h"
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
  void draw_panel();
  void draw_precision_banner();
  void take_screenshot(const std::string& path);
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
  bool show_panel_ = true;

  gl::FrameMeasurement last_;
  std::optional<Metrics> last_metrics_;
  History frame_ms_, render_ms_;
  double last_frame_start_ = 0;
  long long frames_done_ = 0;
};

}  // namespace mp
