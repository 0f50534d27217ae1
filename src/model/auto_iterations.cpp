#include "model/auto_iterations.h"

#include <algorithm>
#include <vector>

#include "kernel_params.h"
#include "model/big_real.h"

namespace mp {

double edge_ring_inside_share(const float* top, const float* bottom, const float* left,
                              const float* right, int width, int height) {
  if (width <= 0 || height <= 0) return 0;
  long inside = 0, edge = 0;
  const auto look = [&](const float* pixel) {
    ++edge;
    inside += pixel[0] < 0;
  };
  for (int x = 0; x < width; ++x) {
    look(top + x * kFloatsPerPixel);
    if (height > 1) look(bottom + x * kFloatsPerPixel);
  }
  for (int y = 1; y + 1 < height; ++y) {
    look(left + y * kFloatsPerPixel);
    if (width > 1) look(right + y * kFloatsPerPixel);
  }
  return static_cast<double>(inside) / edge;
}

double edge_inside_share(const float* data, int width, int height) {
  if (width <= 0 || height <= 0) return 0;
  const std::size_t row = static_cast<std::size_t>(width) * kFloatsPerPixel;
  std::vector<float> left(static_cast<std::size_t>(height) * kFloatsPerPixel), right(left.size());
  for (int y = 0; y < height; ++y)
    for (int k = 0; k < kFloatsPerPixel; ++k) {
      left[y * kFloatsPerPixel + k] = data[y * row + k];
      right[y * kFloatsPerPixel + k] = data[y * row + (width - 1) * kFloatsPerPixel + k];
    }
  return edge_ring_inside_share(data, data + (height - 1) * row, left.data(), right.data(), width,
                                height);
}

double late_share(const float* data, int width, int height, unsigned max_iter) {
  if (width <= 0 || height <= 0) return 0;
  const std::size_t n = static_cast<std::size_t>(width) * height;
  const float half = max_iter / 2.0f;
  std::size_t late = 0;
  bool inside = false;
  for (std::size_t i = 0; i < n; ++i) {
    late += data[i * kFloatsPerPixel] > half;
    inside |= data[i * kFloatsPerPixel] < 0;
  }
  // Where every pixel escaped, a higher limit changes none of them, however late they escaped
  // (a deep view's counts all lie near its lowest).
  return inside ? static_cast<double>(late) / n : 0.0;
}

unsigned depth_floor(FloatExp span) {
  constexpr double kStepsPerDecade = 1000;
  const double decades = -log10_of(span);
  if (!(decades > 3)) return 0;
  return static_cast<unsigned>(std::min(kStepsPerDecade * decades, 1e9));
}

unsigned limit_floor(FloatExp span, unsigned period, bool in_view) {
  const unsigned long long periods = in_view ? kFloorPeriods : kNearFloorPeriods;
  return static_cast<unsigned>(std::min<unsigned long long>(
      std::max<unsigned long long>(depth_floor(span), periods * period), 1000000000ull));
}

bool floor_from_period(FloatExp span, unsigned period, bool in_view) {
  return limit_floor(span, period, in_view) > depth_floor(span);
}

std::string minibrot_words(unsigned period, bool in_view) {
  return "a minibrot of period " + std::to_string(period) +
         (in_view ? " in view" : " near the view");
}

unsigned AutoIterations::next(double edge_inside, double late, unsigned max_iter, unsigned ceiling,
                              unsigned floor) {
  const bool edge = edge_inside > kRaiseShare, tail = late > kLateShare;
  if (!edge && !tail) {
    raised_at_ = raised_late_ = -1;
    stalled_ = false;
    return max_iter;
  }
  if (stalled_ || max_iter >= ceiling) return max_iter;
  // The last doubling left nearly as many inside (or as many late, now in the new limit's last
  // half) of what asked for it: a higher limit would not free them.
  if (max_iter == raised_to_ && raised_at_ >= 0) {
    const bool edge_stuck = !edge || (raised_at_ > kRaiseShare && edge_inside > 0.9 * raised_at_);
    const bool tail_stuck = !tail || (raised_late_ > kLateShare && late > 0.9 * raised_late_);
    // Below the floor most of the edge still at the limit is what the depth or the minibrot near
    // it leads one to expect, however few a doubling freed (a minibrot's valley frees a few
    // percent a doubling there: docs/measurements.md).
    const bool below_floor = edge_inside > kMostOfTheEdge && max_iter < floor;
    // Most of the edge that asked for it escaped: the doubling freed pixels, and those now late
    // are they (a jump to a deep minibrot, docs/measurements.md).
    const bool edge_freed = raised_at_ > kRaiseShare && edge_inside < 0.5 * raised_at_;
    if (edge_stuck && tail_stuck && !below_floor && !edge_freed) {
      stalled_ = true;
      if (edge_inside >= 1.0) held_inside_ = std::max(held_inside_, max_iter);
      return max_iter;
    }
  }
  // A whole edge at a limit that a doubling already failed to free, deeper in (zooming into a
  // minibrot's interior): no doubling more for each new start.
  if (edge_inside >= 1.0 && max_iter >= floor && max_iter <= held_inside_) {
    stalled_ = true;
    return max_iter;
  }
  raised_at_ = edge_inside;
  raised_late_ = late;
  raised_to_ = std::min(ceiling, max_iter * 2);
  return raised_to_;
}

void AutoIterations::reset() {
  raised_at_ = raised_late_ = -1;
  raised_to_ = 0;
  stalled_ = false;
}

void AutoIterations::forget() {
  reset();
  held_inside_ = 0;
}

}  // namespace mp
