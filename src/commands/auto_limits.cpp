#include "commands/auto_limits.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "kernel_params.h"
#include "model/big_real.h"

namespace mp {

LimitPreview::LimitPreview(const Plan& plan, const std::optional<DeviceInfo>& device,
                           bool approximate, Choose choose)
    : pw_(std::clamp(plan.width / 8, std::min(plan.width, 64), 480)),
      ph_(std::max(1, static_cast<int>(static_cast<long long>(pw_) * plan.height / plan.width))),
      width_(plan.width * plan.ss),
      height_(plan.height * plan.ss),
      approximate_(approximate),
      choose_(std::move(choose)),
      renderer_(device, static_cast<long long>(pw_) * ph_, approximate),
      data_(static_cast<std::size_t>(pw_) * ph_ * kFloatsPerPixel) {}

void LimitPreview::render(const View& v, Progress& progress) {
  // The limits' last preview is the view the colours are fitted to: not rendered again.
  if (rendered_ && *rendered_ == v) return;
  rendered_ = v;
  const PrecisionChoice c = choose_(v);
  if (c.perturbation) {
    // Made for the whole image, which it serves as well as the preview's pixels.
    if (!reference_ || !serves(*reference_, v, width_, height_))
      reference_ = make_reference_said(v, width_, height_, progress, approximate_);
    renderer_.use_reference(reference_);
    renderer_.render_deep(*c.perturbation, v, pw_, ph_, {0, 0, pw_, ph_}, data_.data());
    period_ = reference_->view_period;
    period_in_view_ = reference_->period_in_view;
  } else {
    renderer_.render(c.variant, pixel_grid(v, pw_, ph_), v.max_iter, data_.data());
    period_ = 0;
    period_in_view_ = false;
  }
}

std::optional<FittedColours> LimitPreview::colours(const View& v, const ColourParams& c,
                                                   Progress& progress) {
  render(v, progress);
  return fitted_colours(data_.data(), static_cast<std::size_t>(pw_) * ph_, c);
}

std::vector<unsigned> LimitPreview::limits(View v, AutoIterations& a, Progress& progress) {
  std::vector<unsigned> tried{v.max_iter};
  for (;;) {
    render(v, progress);
    const unsigned next = a.next(edge_inside_share(data_.data(), pw_, ph_),
                                 late_share(data_.data(), pw_, ph_, v.max_iter), v.max_iter,
                                 kMaxIterations, limit_floor(v.span, period_, period_in_view_));
    if (next == v.max_iter) return tried;
    v.max_iter = next;
    tried.push_back(next);
  }
}

std::vector<unsigned> sequence_limits(const std::vector<View>& views, unsigned base,
                                      LimitPreview& preview, Progress& progress) {
  const int n = static_cast<int>(views.size());
  const bool deeper_last = log10_of(views.back().span) <= log10_of(views.front().span);
  AutoIterations a;
  std::vector<unsigned> limits(views.size(), base);
  double anchor = 0;
  unsigned limit = base;
  for (int i = 0; i < n; ++i) {
    const int k = deeper_last ? i : n - 1 - i;
    const double depth = log10_of(views[k].span);
    if (i == 0 || std::abs(depth - anchor) > 0.9) {
      a.reset();
      anchor = depth;
    }
    View v = views[k];
    v.max_iter = limit;
    limit = preview.limits(v, a, progress).back();
    limits[k] = limit;
    progress.report(
        "automatic iterations, previews " + std::to_string(i + 1) + "/" + std::to_string(n),
        static_cast<double>(i + 1) / n);
  }
  return limits;
}

}  // namespace mp
