#include "session/deep_renderer.h"

#include <algorithm>

namespace mp {

DeepStats& DeepStats::operator+=(const DeepStats& s) {
  const bool first = launches == 0;
  PerturbTally::operator+=(s);
  ms += s.ms;
  launches += s.launches;
  longest_ms = std::max(longest_ms, s.longest_ms);
  sm_cycles += s.sm_cycles;
  sm_cycles_mean += s.sm_cycles_mean;
  sms_used = std::max(sms_used, s.sms_used);
  approximated = approximated || s.approximated;
  rounds_counted = (first || rounds_counted) && s.rounds_counted;
  return *this;
}

GpuFrameStats DeepStats::frame_stats() const {
  GpuFrameStats f;
  f.kernel_ms = ms;
  f.longest_launch_ms = longest_ms;
  f.sm_cycles = sm_cycles;
  f.sm_cycles_mean = sm_cycles_mean;
  f.sms_used = sms_used;
  f.launches = launches;
  // The steps run, not counted: a step the tables skipped is no lane's work.
  f.pixel_iters = iterated;
  f.warp_iters = warp_iterated;
  if (rounds_counted) {
    f.perturb_rounds = static_cast<double>(rounds);
    f.perturb_done_rounds = static_cast<double>(done_rounds);
    f.perturb_rebase_rounds = static_cast<double>(rebase_rounds);
  }
  return f;
}

namespace {
// Four warps on each of an SM's four schedulers: the perturbation step's dependent chain leaves
// one warp issuing a small share of its scheduler's cycles.
constexpr int kFillWarpsPerSm = 16;
}  // namespace

DeepRenderer::DeepRenderer(const std::optional<DeviceInfo>& device) {
  if (!device) return;
  gpu_ = std::make_unique<GpuPerturbation>();
  fill_warps_ = device->sm_count * kFillWarpsPerSm;
}

DeepRenderer::~DeepRenderer() = default;

void DeepRenderer::use(std::shared_ptr<const DeepReference> ref) {
  if (ref != ref_) uploaded_ = nullptr;  // a new one may come at the old one's address
  ref_ = std::move(ref);
}

DeepStats DeepRenderer::render(DeltaFormat format, const View& view, int width, int height,
                               PixelRect rect, float* out, unsigned* counts,
                               float* warp_efficiency) {
  const DeepReference& ref = *ref_;
  const DeepGrid grid = deep_grid(ref, view, width, height);
  DeepStats s;
  s.format = format;
  s.launches = 1;
  if (gpu_) {
    if (uploaded_ != &ref) {
      gpu_->set_reference(ref.orbit.view(), ref.dbl.entries.data(), ref.extended.entries.data(),
                          ref.flt.entries.data(), ref.extended.offset.data(),
                          ref.extended.levels());
      uploaded_ = &ref;
    }
    const GpuPerturbStats g =
        gpu_->render(format, grid, rect, view.max_iter, out, counts, approximate_, warp_efficiency);
    s.gpu = true;
    s.ms = s.longest_ms = g.kernel_ms;
    s.sm_cycles = g.sm_cycles;
    s.sm_cycles_mean = g.sm_cycles_mean;
    s.sms_used = g.sms_used;
    s.approximated = g.approximated;
    s.rounds_counted = !g.approximated && format == DeltaFormat::Double;
    static_cast<PerturbTally&>(s) = g;
    return s;
  }
  const BlaTables tables =
      approximate_ ? BlaTables{&ref.dbl, &ref.extended, &ref.flt} : BlaTables{};
  const PerturbStats c = render_perturbation_cpu(format, grid, rect, ref.orbit.view(), tables,
                                                 view.max_iter, out, counts);
  s.ms = s.longest_ms = c.ms;
  s.approximated = approximate_ && bla_usable(ref.extended.levels());  // as the GPU's launch does
  s.rounds_counted = c.rounds_counted;
  static_cast<PerturbTally&>(s) = c;
  return s;
}

}  // namespace mp
