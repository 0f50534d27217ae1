#include "counters/sampling_policy.h"

#include <algorithm>
#include <cmath>

namespace mp::counters {

Renewal renewal(const ImageFill& fill, bool launch_under_way) {
  if (fill.populated == 0) return Renewal::Keep;
  const std::size_t due = launch_under_way ? fill.total / 2 : fill.total / 8;
  if (!fill.full && fill.completed < due) return Renewal::Keep;
  if (fill.populated == fill.completed) return Renewal::AtBoundary;
  // Under a launch, cutting one sample costs it a sample; filling up costs it what the hardware
  // buffer holds, a decode round's worth.
  const bool nearly_full = fill.completed >= fill.total - fill.total / 8;
  return launch_under_way && !fill.full && !nearly_full ? Renewal::Keep : Renewal::Cut;
}

DutyCycle::DutyCycle() : DutyCycle(Settings()) {}

DutyCycle::DutyCycle(const Settings& s) : s_(s), tokens_(s.bucket) {}

bool DutyCycle::offer(double t, bool settled) {
  const double dt = t - last_offer_;
  // Frames that had stopped and start again say nothing of their period.
  if (period_ == 0 && last_offer_ > -kNever)
    period_ = dt;
  else if (dt <= std::max(2 * period_, s_.patience))
    period_ = 0.75 * period_ + 0.25 * dt;
  last_offer_ = t;
  // Armed for a frame, it reads the first that comes: the budget had its say when it armed.
  if (!settled || (t < due() && armed_at_ <= last_read_)) return false;
  last_read_ = t;
  return true;
}

void DutyCycle::spent(double t, double cpu) {
  if (charged_) {
    tokens_ = std::min(s_.bucket, tokens_ + s_.budget * (t - last_t_)) - (cpu - last_cpu_);
  }
  charged_ = true;
  last_t_ = t;
  last_cpu_ = cpu;
}

double DutyCycle::due() const {
  const double refilled = tokens_ >= 0 ? -kNever : last_t_ - tokens_ / s_.budget;
  return std::max(last_read_ + s_.min_period, refilled);
}

DutyCycle::Plan DutyCycle::plan(double t, bool on, bool busy) {
  if (busy) return {true, kNever};
  // No frame for longer than a frame's gap allows: the window is idle, or lent the GPU to an
  // experiment; the next frame offered wakes the thread.
  const double overdue_at = last_offer_ + std::max(2 * period_, s_.patience);
  if (t > overdue_at) return {false, kNever};
  if (on && armed_at_ > last_read_) return {true, overdue_at};
  // The first frame expected once a reading is due, and when to arm for it.
  double expected = due();
  if (period_ > 0)
    expected = last_offer_ + std::max(1.0, std::ceil((expected - last_offer_) / period_)) * period_;
  const double arm_at = expected - lead_;
  if (on ? t < arm_at - s_.keep_on : t < arm_at) return {false, arm_at};
  armed_at_ = t;
  return {true, overdue_at};
}

}  // namespace mp::counters
