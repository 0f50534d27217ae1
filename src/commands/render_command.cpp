// mandelpipe render: one image without a window, plus a sidecar JSON of what was measured.
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands/commands.h"
#include "commands/common.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gl/colorizer.h"
#include "gl/egl_context.h"
#include "gl/frame_pipeline.h"
#include "gl/offscreen_target.h"
#include "io/files.h"
#include "model/variant_table.h"
#include "version.h"

namespace mp {
namespace {

struct Rendered {
  std::vector<std::uint8_t> rgba;
  gl::FrameMeasurement m;
  std::string renderer, present, fallback;
};

// The window's path, off screen: kernel into a GL surface, palette shader into an FBO.
Rendered render_with_gl(const Options& o, const DeviceChoice& dc, const Palette& palette) {
  gl::EglContext egl;
  gl::FramePipeline pipe(dc.device, dc.cpu_reason, PresentMode::Auto);
  pipe.resize(o.width, o.height);
  Rendered r;
  r.m = pipe.render(o.variant, o.view);
  gl::OffscreenTarget target(o.width, o.height);
  target.bind();
  gl::Colorizer colorizer;
  colorizer.set_palette(palette);
  colorizer.draw(pipe.surface(), ColourParams{});
  r.rgba = target.read_rgba();
  r.renderer = pipe.renderer_description();
  r.present = pipe.present_description() + " (" + egl.description() + ")";
  r.fallback = pipe.fallback_reason();
  return r;
}

// No EGL at all: the same data, coloured by the CPU twin of the shader.
Rendered render_without_gl(const Options& o, const DeviceChoice& dc, const Palette& palette,
                           const std::string& why) {
  Rendered r;
  const std::size_t floats = static_cast<std::size_t>(o.width) * o.height * kFloatsPerPixel;
  std::vector<float> data(floats);
  const PixelGrid grid = pixel_grid(o.view, o.width, o.height);
  if (dc.device) {
    GpuRenderer gpu(*dc.device);
    DeviceBuffer<float> out(floats);
    r.m.gpu = true;
    r.m.gpu_stats = gpu.render(o.variant, grid, o.view.max_iter, out.get());
    CUDA_CHECK(cudaMemcpy(data.data(), out.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
    r.renderer = "CUDA on " + dc.device->name;
  } else {
    CpuRenderer cpu;
    r.m.cpu_stats = cpu.render(o.variant, grid, o.view.max_iter, data.data());
    r.renderer = "CPU reference (" + std::to_string(cpu.threads()) + " threads)";
  }
  r.rgba.resize(static_cast<std::size_t>(o.width) * o.height * 4);
  colourize_image(data.data(), o.width, o.height, build_lut(palette), ColourParams{},
                  r.rgba.data());
  r.present = "CPU colour mapping";
  r.fallback = dc.cpu_reason.empty() ? why : dc.cpu_reason + "; " + why;
  return r;
}

}  // namespace

int run_render(const Options& o) {
  const std::filesystem::path png = o.out;
  const std::filesystem::path json_path = sidecar_path(png);
  try {
    check_writable(png);
    check_writable(json_path);
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  const Palette palette = find_palette(o.palette);
  const DeviceChoice dc = choose_device(o.force_cpu);

  Rendered r;
  try {
    r = render_with_gl(o, dc, palette);
  } catch (const CudaError&) {
    throw;
  } catch (const std::runtime_error& e) {
    r = render_without_gl(o, dc, palette, std::string("no GL off screen: ") + e.what());
  }

  nlohmann::json j;
  j["mandelpipe"] = kVersion;
  j["image"] = png.filename().string();
  j["parameters"] = {{"width", o.width},
                     {"height", o.height},
                     {"center", {o.view.center_x, o.view.center_y}},
                     {"span", o.view.span},
                     {"iters", o.view.max_iter},
                     {"variant", variant_info(o.variant).name},
                     {"palette", palette.name}};
  j["renderer"] = r.renderer;
  j["present"] = r.present;
  if (!r.fallback.empty()) j["fallback"] = r.fallback;
  const PrecisionStatus prec =
      float_precision(o.view, o.width, o.height, variant_info(o.variant).fp64);
  j["precision_exhausted"] = prec.exhausted;
  if (r.m.gpu) {
    j["device"] = {{"name", dc.device->name},
                   {"compute_capability", std::to_string(dc.device->cc_major) + "." +
                                              std::to_string(dc.device->cc_minor)},
                   {"sm_count", dc.device->sm_count}};
    j["frame"] = to_json(measured_row(*dc.device, o.variant, "render", o.view, o.width, o.height, 1,
                                      r.m.gpu_stats, nullptr));
  } else {
    j["frame"] = {{"measured",
                   {{"cpu_ms", r.m.cpu_stats.ms},
                    {"pixel_iters", r.m.cpu_stats.pixel_iters},
                    {"threads", r.m.cpu_stats.threads}}},
                  {"model", "n/a: the bound model describes GPU pipes"}};
  }
  try {
    // The image last: whoever waits for it finds its sidecar already there.
    write_files_atomic(
        {{json_path, j.dump(2) + "\n"}, {png, encode_png(o.width, o.height, r.rgba.data())}});
  } catch (const std::exception& e) {
    throw ExitError(2, e.what());
  }
  std::cout << "wrote " << png.string() << " and " << json_path.string() << " (" << o.width << "x"
            << o.height << ", " << variant_info(o.variant).name << ", " << r.renderer << ", "
            << r.m.render_ms() << " ms)\n";
  if (!r.fallback.empty()) std::cerr << "mandelpipe: note: " << r.fallback << "\n";
  return 0;
}

}  // namespace mp
