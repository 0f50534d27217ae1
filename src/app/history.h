// The last few hundred samples of a per-frame number, for averages and the panel's plots.
#pragma once

#include <array>
#include <cstddef>

namespace mp {

class History {
 public:
  static constexpr std::size_t kCapacity = 240;

  void push(float v) {
    values_[next_] = v;
    next_ = (next_ + 1) % kCapacity;
    if (count_ < kCapacity) ++count_;
  }
  void clear() { count_ = next_ = 0; }
  std::size_t size() const { return count_; }
  // Mean of the newest n samples (fewer if fewer were pushed).
  float mean(std::size_t n = 30) const {
    n = n < count_ ? n : count_;
    if (n == 0) return 0;
    float s = 0;
    for (std::size_t i = 0; i < n; ++i) s += values_[(next_ + kCapacity - 1 - i) % kCapacity];
    return s / n;
  }
  // Sample i back from the newest (0: the newest); i < size().
  float newest(std::size_t i) const { return values_[(next_ + kCapacity - 1 - i) % kCapacity]; }
  // For ImGui::PlotLines: the ring buffer and the offset of its oldest sample.
  const float* data() const { return values_.data(); }
  int offset() const { return count_ < kCapacity ? 0 : static_cast<int>(next_); }

 private:
  std::array<float, kCapacity> values_{};
  std::size_t next_ = 0, count_ = 0;
};

}  // namespace mp
