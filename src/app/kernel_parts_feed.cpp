#include "app/kernel_parts_feed.h"

#include <cstdio>

#include "model/variant_table.h"
#include "session/frame_report.h"

namespace mp {

void KernelPartsFeed::frame_done(gl::FramePipeline& pipeline, const Of& of, const LoadedSass* sass,
                                 const DeviceInfo* device, const GpuFrameStats* stats,
                                 int zero_offsets, const PerturbTally* cpu_rounds) {
  if (last_asked_ && *last_asked_ == of) return;  // the same frame again ("live")
  // Until the SASS is read the frame is not taken as asked, so that the next one is counted.
  if (sass) last_asked_ = of;
  const LoopListing* l = sass ? sass->loop(of.variant, of.build) : nullptr;
  if (!l || !l->whole.unusable.empty()) {
    WholeKernel none;
    none.unusable = l      ? l->whole.unusable
                    : sass ? "no SASS listing of the kernel"
                           : "reading the kernels' SASS";
    done_ = {of, none};
    done_cpu_ = !stats;
    done_cut_ = false;
    return;
  }
  Job job;
  job.of = of;
  job.pixels = pipeline.pixels();
  job.cut = l->whole;
  job.shape.shape = variant_info(of.variant).shape;
  job.shape.width = of.size.first;
  job.shape.height = of.size.second;
  job.shape.max_iter = of.view.max_iter;
  job.shape.efficiencies = of.efficiencies;
  job.shape.zero_offsets = zero_offsets;
  job.cpu = !stats;
  job.orbits_cut = stats && stats->resumable;
  if (stats) {
    take_launch_figures(job.shape, *stats);
    job.run_warp_steps = static_cast<double>(stats->warp_iters);
  } else if (cpu_rounds) {
    take_rounds(job.shape, *cpu_rounds);
  }
  if (device) {
    job.shape.sm_count = device->sm_count;
    job.shape.warps_per_sm = max_warps_per_sm(device->cc_major, device->cc_minor);
  }
  if (task_ && !task_->done()) {
    waiting_ = std::move(job);
    return;
  }
  start(std::move(job));
}

void KernelPartsFeed::start(Job job) {
  running_ = job.of;
  running_cpu_ = job.cpu;
  running_cut_ = job.orbits_cut;
  task_ = std::make_unique<BackgroundTask<WholeKernel>>([job = std::move(job)] {
    const std::size_t pixels = job.pixels.size() / kFloatsPerPixel;
    if (pixels != static_cast<std::size_t>(job.shape.width) * job.shape.height) {
      WholeKernel w;
      w.unusable = "the frame's pixels are not of its size";
      return w;
    }
    const std::vector<unsigned> counts =
        counts_from_pixels(job.pixels.data(), pixels, job.shape.max_iter);
    return whole_kernel_of_frame(job.of.variant, job.cut, job.shape, counts.data(),
                                 job.run_warp_steps);
  });
}

bool KernelPartsFeed::poll() {
  if (!task_) return false;
  std::optional<WholeKernel> w;
  try {
    w = task_->poll();
  } catch (const std::exception& e) {
    w = WholeKernel{};
    w->unusable = e.what();
  }
  if (!w) return false;
  done_ = {running_, std::move(*w)};
  done_cpu_ = running_cpu_;
  done_cut_ = running_cut_;
  task_.reset();
  if (waiting_) {
    start(std::move(*waiting_));
    waiting_.reset();
  }
  return true;
}

const WholeKernel* KernelPartsFeed::model_of(const Of& of) const {
  return done_ && done_->first == of && done_->second.ok() ? &done_->second : nullptr;
}

std::vector<std::pair<std::string, bool>> KernelPartsFeed::lines(const Of& of,
                                                                 double step_loop_issue) const {
  std::vector<std::pair<std::string, bool>> out;
  char line[200];
  // While this frame's parts are counted, the last frame's stay, dimmed and said to be of it, so
  // that the overlay keeps its height while the view moves.
  const bool previous = done_ && !(done_->first == of);
  if (!done_ || (previous && !done_->second.ok())) {
    out.push_back({"Whole kernel: counting this frame's parts...", true});
    return out;
  }
  const WholeKernel& w = done_->second;
  if (!w.ok()) {
    out.push_back({"Whole kernel: not modelled: " + w.unusable, true});
    return out;
  }
  const double all = w.instructions();
  if (previous) {
    std::snprintf(line, sizeof line,
                  "Whole kernel: counting this frame's parts; below, the previous frame's (%s): "
                  "%.4g warp-instructions",
                  variant_info(done_->first.variant).name.data(), all);
  } else {
    std::snprintf(line, sizeof line,
                  "Whole kernel (model: the SASS's parts x this frame's counts): %.4g "
                  "warp-instructions",
                  all);
  }
  out.push_back({line, previous});
  constexpr KernelPart kParts[] = {KernelPart::StepLoop, KernelPart::PerBlock, KernelPart::PerPixel,
                                   KernelPart::PerLaunch};
  const char* const kWhat[] = {
      "the long blocks' loop (perturb: its steps)",
      "short first blocks, replays, between phases; refill's and perturb's rounds",
      "set-up, finish, colouring value, tallies",
      done_cpu_ ? "the queue (the warps' start and end: no GPU to size them)"
                : "the queue, each warp's start and end"};
  for (int i = 0; i < kKernelPartCount; ++i) {
    const double n = w.part(kParts[i]).mix.total();
    std::snprintf(line, sizeof line, "  %-10s %5.1f%%  %10.4g  %s", kernel_part_name(kParts[i]),
                  all > 0 ? 100 * n / all : 0.0, n, kWhat[i]);
    out.push_back({line, previous});
  }
  if (previous) {
    out.push_back(
        {"the rows above are the step loop's until this frame's parts are counted", true});
  } else if (step_loop_issue >= 0) {
    std::snprintf(line, sizeof line,
                  "the rows above are the whole kernel's; the step loop alone would keep issue "
                  "%.1f%% busy",
                  100 * step_loop_issue);
    out.push_back({line, true});
  }
  if (done_cpu_)
    out.push_back(
        {"the CPU path rendered: these are the GPU kernel's parts for these pixels (the "
         "captured SASS), without the launch's persistent warps (no GPU to size them)",
         true});
  if (done_cut_)
    out.push_back(
        {"this frame's orbits were cut across launches: each launch starts its blocks "
         "again where an orbit stood, which the model, counting each orbit from its "
         "start in one launch, does not place",
         true});
  for (const std::string& u : w.unplaced) out.push_back({"not placed exactly: " + u, true});
  for (const std::string& u : w.not_modelled) out.push_back({"not modelled: " + u, true});
  return out;
}

}  // namespace mp
