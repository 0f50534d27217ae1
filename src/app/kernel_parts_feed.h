// The whole-kernel model (model/whole_kernel.h) of the window's frames, for the pipe overlay: a
// finished frame of a new view, variant or size has its pixels read back, their step counts taken
// from the smooth values, and the model worked out on a thread of its own (tens of ms at 1080p),
// one frame at a time, the newest waiting.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/background_task.h"
#include "gl/frame_pipeline.h"
#include "io/sass_loader.h"
#include "model/pipe_load.h"
#include "model/view.h"
#include "model/whole_kernel.h"
#include "perturbation.h"

namespace mp {

class KernelPartsFeed {
 public:
  // What a model is of.
  struct Of {
    View view;
    VariantId variant{};
    std::pair<int, int> size{0, 0};
    sass::KernelBuild build = sass::KernelBuild::Plain;
    bool efficiencies = false;  // the frame kept each tile's SIMT efficiency (divergence view)
    bool operator==(const Of& o) const {
      return view == o.view && variant == o.variant && size == o.size && build == o.build &&
             efficiencies == o.efficiencies;
    }
  };
  // A finished frame: `stats` is the GPU's (null on the CPU path, where the model is of the GPU
  // kernel's parts for these pixels, its launch's warps left out), `device` the GPU's;
  // `zero_offsets` a perturbation frame's (FrameShape's; -1 for the others); `cpu_rounds` a
  // perturbation frame's rounds as the CPU reference's warps ran them (null: not counted).
  void frame_done(gl::FramePipeline& pipeline, const Of& of, const LoadedSass* sass,
                  const DeviceInfo* device, const GpuFrameStats* stats, int zero_offsets = -1,
                  const PerturbTally* cpu_rounds = nullptr);
  // Takes a finished model: true when one came.
  bool poll();
  // The model of frame `of`, once worked out.
  const WholeKernel* model_of(const Of& of) const;
  // Whether frame `of` has its final answer (a model, or why there is none): asked for with the
  // SASS read, and nothing is being worked out for it.
  bool settled(const Of& of) const {
    return last_asked_ && *last_asked_ == of && !task_ && !waiting_ && done_ && done_->first == of;
  }
  // The overlay's lines for frame `of`: the parts side by side and what the model leaves out;
  // with `loads` (the pipe rows' figures, by the whole kernel) and `step_loop_issue` (the issue
  // share of the step loop alone), a line comparing the two; while `of` is counted, the last
  // frame's lines, dimmed and said to be of it. Second: shown dimmed.
  std::vector<std::pair<std::string, bool>> lines(const Of& of, double step_loop_issue) const;

 private:
  struct Job {
    Of of;
    std::vector<float> pixels;
    KernelCut cut;
    FrameShape shape;
    double run_warp_steps = -1;
    bool cpu = false;  // the CPU path rendered the pixels: no launch of the GPU's to count
    bool orbits_cut =
        false;  // the GPU cut the frame's orbits across launches (the resumable kernel)
  };
  void start(Job job);

  std::unique_ptr<BackgroundTask<WholeKernel>> task_;
  std::optional<Job> waiting_;
  Of running_;
  bool running_cpu_ = false, running_cut_ = false;
  std::optional<std::pair<Of, WholeKernel>> done_;
  bool done_cpu_ = false, done_cut_ = false;
  std::optional<Of> last_asked_;
};

}  // namespace mp
