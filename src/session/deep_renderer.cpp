#include "session/deep_renderer.h"

namespace mp {

DeepStats& DeepStats::operator+=(const DeepStats& s) {
  PerturbTally::operator+=(s);
  ms += s.ms;
  launches += s.launches;
  return *this;
}

DeepRenderer::DeepRenderer(const std::optional<DeviceInfo>& device) {
  if (device) gpu_ = std::make_unique<GpuPerturbation>();
}

DeepRenderer::~DeepRenderer() = default;

void DeepRenderer::use(std::shared_ptr<const DeepReference> ref) {
  if (ref != ref_) uploaded_ = nullptr;  // a new one may come at the old one's address
  ref_ = std::move(ref);
}

DeepStats DeepRenderer::render(DeltaFormat format, const View& view, int width, int height,
                               PixelRect rect, float* out, unsigned* counts) {
  const DeepReference& ref = *ref_;
  const DeepGrid grid = deep_grid(ref, view, width, height);
  DeepStats s;
  s.format = format;
  s.launches = 1;
  if (gpu_) {
    if (uploaded_ != &ref) {
      gpu_->set_reference(ref.orbit.view(), ref.dbl.entries.data(), ref.extended.entries.data(),
                          ref.extended.offset.data(), ref.extended.levels());
      uploaded_ = &ref;
    }
    const GpuPerturbStats g =
        gpu_->render(format, grid, rect, view.max_iter, out, counts, approximate_);
    s.gpu = true;
    s.ms = g.kernel_ms;
    static_cast<PerturbTally&>(s) = g;
    return s;
  }
  const BlaTables tables = approximate_ ? BlaTables{&ref.dbl, &ref.extended} : BlaTables{};
  const PerturbStats c = render_perturbation_cpu(format, grid, rect, ref.orbit.view(), tables,
                                                 view.max_iter, out, counts);
  s.ms = c.ms;
  static_cast<PerturbTally&>(s) = c;
  return s;
}

}  // namespace mp
