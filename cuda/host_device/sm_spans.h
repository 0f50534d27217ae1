// The per-SM records a measured launch leaves (indexed by %smid) and their reduction into one
// reading: the one layout the kernels write and the measuring kit (measure_kit.h) clears and
// reads back. Plain C++, no CUDA runtime, so the reduction is tested without a GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mp {

// %smid is bounded by %nsmid, not by the SM count: arrays indexed by it are this long.
inline constexpr int kSmSlots = 1024;

// The per-SM arrays of one buffer, kSmSlots words each, in this order: first (earliest start,
// clock64), last (latest end), then where asked for blocks (blocks run) and `extras` further
// counters; then `scratch` words of the kernel's own, zeroed with them.
struct SpanLayout {
  bool blocks = false;
  int extras = 0;
  int scratch = 0;

  int per_sm_arrays() const { return 2 + (blocks ? 1 : 0) + extras; }
  std::size_t per_sm_words() const { return static_cast<std::size_t>(per_sm_arrays()) * kSmSlots; }
  std::size_t words() const { return per_sm_words() + static_cast<std::size_t>(scratch); }
};

// Device pointers into a buffer of that layout; null where the layout has none. first starts
// at ~0 and only falls, the rest start at 0.
struct SmSpan {
  unsigned long long* first = nullptr;
  unsigned long long* last = nullptr;
  unsigned long long* blocks = nullptr;
  unsigned long long* extra = nullptr;  // counter k of SM i at extra[k * kSmSlots + i]
  unsigned long long* scratch = nullptr;
};

inline SmSpan span_of(const SpanLayout& layout, unsigned long long* base) {
  SmSpan s;
  s.first = base;
  s.last = base + kSmSlots;
  unsigned long long* next = base + 2 * kSmSlots;
  if (layout.blocks) {
    s.blocks = next;
    next += kSmSlots;
  }
  if (layout.extras > 0) s.extra = next;
  if (layout.scratch > 0) s.scratch = base + layout.per_sm_words();
  return s;
}

// One measured launch, reduced.
struct SpanReading {
  double ms = 0;                             // CUDA events around the launch
  unsigned long long sm_cycles = 0;          // max over SMs of (last end - first start)
  double sm_cycles_mean = 0;                 // the same span, averaged over the SMs used
  int sms_used = 0;                          // SMs where work ended (last is not 0)
  unsigned long long max_blocks_per_sm = 0;  // 0 where the layout counts no blocks
  std::vector<unsigned long long> extras;    // each extra counter summed over the SMs used

  double clock_ghz() const { return ms > 0 ? static_cast<double>(sm_cycles) / (ms * 1e6) : 0; }
};

// The per-SM arrays as read back (layout.per_sm_words() words, in layout order) and the events'
// milliseconds, as one reading. An SM that only started work (a kernel that lowers `first`
// alone, such as the tile ordering) is not counted.
inline SpanReading reduce_spans(const SpanLayout& layout, const unsigned long long* host,
                                double ms) {
  SpanReading r;
  r.ms = ms;
  r.extras.assign(static_cast<std::size_t>(layout.extras), 0);
  const unsigned long long* blocks = layout.blocks ? host + 2 * kSmSlots : nullptr;
  const unsigned long long* extra = host + (layout.blocks ? 3 : 2) * kSmSlots;
  for (int i = 0; i < kSmSlots; ++i) {
    const unsigned long long first = host[i], last = host[kSmSlots + i];
    if (last == 0) continue;
    ++r.sms_used;
    r.sm_cycles = std::max(r.sm_cycles, last - first);
    r.sm_cycles_mean += static_cast<double>(last - first);
    if (blocks) r.max_blocks_per_sm = std::max(r.max_blocks_per_sm, blocks[i]);
    for (int k = 0; k < layout.extras; ++k)
      r.extras[static_cast<std::size_t>(k)] += extra[static_cast<std::size_t>(k) * kSmSlots + i];
  }
  if (r.sms_used > 0) r.sm_cycles_mean /= r.sms_used;
  return r;
}

}  // namespace mp
