#include "model/ab_recorder.h"

#include <numeric>
#include <optional>
#include <sstream>

#include "model/median.h"

namespace mp {

void AbRecorder::close_frame(long long frame, bool b) {
  last_counts_ = settled(frame);
  last_b_ = b;
  last_block_ = static_cast<std::size_t>(frame / kBlock);
}

void AbRecorder::frame_time(double ms) {
  if (!last_counts_) return;
  frames_[last_b_].push_back(ms);
  if (blocks_.size() <= last_block_) blocks_.resize(last_block_ + 1);
  blocks_[last_block_].push_back(ms);
}

void AbRecorder::ui_cpu(long long frame, bool b, double ms) {
  if (settled(frame)) ui_cpu_[b].add(ms);
}

void AbRecorder::ui_gpu(long long frame, bool b, double ms) {
  if (settled(frame)) ui_gpu_[b].add(ms);
}

void AbRecorder::kernel(long long frame, bool b, double ms) {
  if (settled(frame)) kernel_[b].add(ms);
}

std::string AbRecorder::summary(const std::string& name, double own_cpu_ms,
                                const std::string& ui_timed_on, bool kernels_timed) const {
  std::ostringstream out;
  if (!both_halves()) {
    out << name << " A/B: too few frames to time both halves";
    return out.str();
  }
  // Means, and medians: the X server now and then stretches a frame, which moves a mean.
  const auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  const double off = mean(frames_[0]), on = mean(frames_[1]);
  const double off_median = median(frames_[0]), on_median = median(frames_[1]);
  // Block by block as well: each B block against the A blocks on either side.
  const std::optional<double> paired = alternating_blocks_difference(blocks_);
  out << name << " A/B: " << frames_[0].size() << " frames without, " << frames_[1].size()
      << " with: mean " << off << " -> " << on << " ms per frame (" << (on / off - 1) * 100
      << "%), median " << off_median << " -> " << on_median << " ms ("
      << (on_median / off_median - 1) * 100 << "%), block by block ";
  if (paired)
    out << (*paired >= 0 ? "+" : "") << *paired << " ms (" << *paired / off_median * 100 << "%)";
  else
    out << "n/a (too few blocks)";
  out << "; overlay's own CPU " << own_cpu_ms << " ms; UI end of frame CPU " << ui_cpu_[0].mean()
      << " -> " << ui_cpu_[1].mean() << " ms, " << ui_timed_on << " " << ui_gpu_[0].mean() << " -> "
      << ui_gpu_[1].mean() << " ms; ";
  if (kernels_timed)
    out << "kernel " << kernel_[0].mean() << " -> " << kernel_[1].mean() << " ms (events)";
  else
    out << "kernel: not timed (the CPU path has no CUDA events)";
  return out.str();
}

}  // namespace mp
