// F12 and --screenshot: the window as the user sees it, for articles and slides; F12 adds a
// sidecar of what produced it.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/capture_path.h"
#include "gl/offscreen_target.h"
#include "io/colour_settings.h"
#include "io/counter_columns.h"
#include "io/files.h"
#include "model/variant_table.h"
#include "version.h"

namespace mp {

void App::capture_when_whole() {
  static constexpr const char* kWaiting = "capture waits for the frame to finish";
  // Live draws a finished frame over itself again, so the image is whole once one has finished.
  const bool drawing = pipeline_.refining() || deep_.busy();
  const bool finished_once = report_ && shown_ && report_->of == shown_->of;
  if (!capture_waiting_) return;
  if (drawing && !(ex_.live && finished_once)) {
    ex_.status = kWaiting;
    return;
  }
  // The picture is taken of a frame drawn without the waiting line: one more frame first.
  if (ex_.status == kWaiting) {
    ex_.status.clear();
    return;
  }
  capture_waiting_ = false;
  ex_.jobs.push(
      "capture", [this] { capture_with_sidecar(); },
      [this](const std::string& why) { ex_.status = "capture failed: " + why; });
}

void App::capture_with_sidecar() {
  const std::filesystem::path png = capture_path(opts_.capture_dir, "mandelpipe", ".png");
  // The window as it is now; written with its sidecar once that is complete, both or neither.
  const std::string image = screenshot_png();
  const auto [fw, fh] = window_.framebuffer_size();
  const int left = std::max(view_left_, 0);
  // The view as Ctrl+C and render take it: of the area beside the panel, whose size render
  // writes it at to give these pixels; the window's whole width renders `shown`.
  const View& view = ex_.view;
  const View shown = window_view();
  nlohmann::json j;
  j["mandelpipe"] = kVersion;
  j["image"] = png.filename().string();
  j["image_size"] = {{"width", fw}, {"height", fh}};
  j["view"] = {{"center", {centre_text(view.center_x, view), centre_text(view.center_y, view)}},
               {"span", exact_span_text(view.span)},
               {"iters", view.max_iter},
               {"width", fw - left},
               {"height", fh},
               {"left", left},
               {"of",
                "the area beside the panel, from pixel column left to the image's right "
                "edge: mandelpipe render at width x height writes it pixel for pixel (with a float "
                "variant, a few pixels on the set's edge may differ: float rounds each pixel's "
                "coordinate from its grid's first column, in the window under the panel)"}};
  j["variant"] = variant_info(ex_.variant).name;
  j["colour"] = colour_settings_json({palettes_[ex_.palette].name, ex_.colour});
  j["renderer"] = pipeline_.renderer_description();
  j["present"] = pipeline_.present_description();
  // Why the frame is not what was asked for (a window past the texture limit, no CUDA), if it is.
  if (!pipeline_.fallback_reason().empty()) j["fallback"] = pipeline_.fallback_reason();
  // The last finished frame's figures, as its report holds them (of its own view, variant and
  // size: a frame still rendering has none yet).
  const FrameReport none;
  const FrameReport& r = report_ ? *report_ : none;
  if (device_.device) {
    j["device"] = {{"name", device_.device->name},
                   {"compute_capability", facts_.compute_capability()}};
    j["frame"] = to_json(measured_row(r, "current"));
    j["clock_ghz"] = r.metrics ? r.metrics->clock_ghz : 0.0;
  } else {
    j["frame"] = frame_json(r);  // as render's sidecar writes a CPU frame
  }
  j["instruction_mix"] = mix_source();
  j["counters_source"] = counters_source(false);
  j["counters"] = counter_json(counters_.figures());
  j["counters_frame"] = counters_.frame();
  // The table of every variant belongs with the picture: where the one on hand is of another
  // view, the files wait for a compare of this one (the image above is already taken, so it
  // shows the window as it was).
  auto write = [this, png, image, j, view, shown, left, fw = fw, fh = fh](
                   const std::string& compare_stopped, bool compared_now) mutable {
    if (compare_.current(shown, fw, fh))
      j["compare"] = nlohmann::json::parse(format_bench(*compare_.report(), OutputFormat::Json));
    else if (!compare_stopped.empty())
      j["compare"] = "not taken: " + compare_stopped;
    // The view as a Kalles Fraktaler location too, for the programs people share views with.
    std::filesystem::path kfr = png;
    kfr.replace_extension(".kfr");
    std::vector<std::pair<std::filesystem::path, std::string>> files = {
        {sidecar_path(png), j.dump(2) + "\n"}};
    try {
      files.push_back({kfr, format_kfr_view(view, fw - left, fh)});
    } catch (const std::invalid_argument&) {  // deeper than KF's files reach: no .kfr
    }
    files.push_back({png, image});
    write_files_atomic(files);
    std::cout << "wrote " << png.string() << " and its .json and .kfr\n";
    ex_.status =
        "saved " + png.string() + " and its .json and .kfr" +
        (compared_now && compare_stopped.empty() ? ", with every variant compared at this view"
         : compare_stopped.empty()               ? ""
                                                 : " (compare " + compare_stopped + ")");
  };
  if (gpu_.has_renderer() && !compare_.current(shown, fw, fh)) {
    if (const char* busy = ex_.measuring()) {
      write(std::string(busy) + " running", false);
      return;
    }
    compare_.request(ex_, gpu_, shown, fw, fh, sass(), counters_.probe(),
                     [this, write](const std::string& stopped) mutable {
                       try {  // reported as the capture's failure, not the compare's
                         write(stopped, true);
                       } catch (const std::exception& e) {
                         ex_.status = std::string("capture failed: ") + e.what();
                       }
                     });
    ex_.status = "capture taken: its files are written once every variant is compared";
    return;
  }
  write("", false);
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
