// How a GPU frame is cut into launches of bounded length: each launch's range of tiles and the
// steps its pixels may take, from the frame's previous launch. Pure host arithmetic, tested
// without a GPU.
#pragma once

#include <algorithm>

#include "kernel_params.h"

namespace mp {

// A launch's work may grow at most this much from one launch to the next: a launch sized by the
// rate of cheap tiles that runs into costly ones overshoots the target by no more than this factor
// times their difference in cost.
inline constexpr double kLaunchGrowth = 2;
// A frame that took less than this share of the target (the previous one at the same size,
// iteration limit and variant) goes in one launch.
inline constexpr double kWholeFrameShare = 0.5;
// Steps a pixel may take in a frame's first launch: a wave of orbits this long takes well under
// a millisecond on the GPUs mandelpipe runs on, so a view of any iteration limit starts short.
// Frames whose limit is at most this start with whole orbits.
inline constexpr unsigned kFirstBudget = 4096;
// Budgets below the limit are whole multiples of this many steps: the blocked step loops run
// whole blocks (up to 32 steps a trip) to the cut.
inline constexpr unsigned kBudgetQuantum = 64;

struct LaunchSizing {
  unsigned left = 0;        // tiles of the frame's pass not yet launched
  unsigned min_tiles = 0;   // a wave: one block per SM, the smallest launch worth making
  unsigned full_tiles = 0;  // a full wave: as many blocks as fit on every SM (0: min_tiles)
  double target_ms = 0;     // the time a launch should take; 0: the rest of the frame at once
  unsigned max_iter = 0;    // the frame's iteration limit
  unsigned last_tiles = 0;  // the frame's previous launch (0: this is its first)
  unsigned last_budget = 0;
  double last_ms = 0;  // ...and its time
  // ...and its warp-steps: the sum over its warps of their slowest lane's steps (a tile is a warp)
  double last_warp_steps = 0;
  // The previous frame at the same size, limit and variant took this long (< 0: none did).
  double previous_frame_ms = -1;
};

// A launch: a range of `tiles` tiles whose pixels each take at most `budget` steps (= max_iter:
// whole orbits).
struct LaunchSize {
  unsigned tiles = 0;
  unsigned budget = 0;
};

// The next launch: 0 tiles only when nothing is left. A launch's time goes about as its tiles
// times its budget, so its work grows and shrinks as the last launch's time says: growing, its
// tiles up to a full wave (warps side by side on an SM that few share cost little time), then
// its budget up to the limit, then more tiles; shrinking, its tiles down to a full wave, then its
// budget, then its tiles down to one wave, since a launch is never shorter than its slowest warp's
// orbits within the budget. Whole waves of tiles (a multiple of min_tiles, rounded up to whole
// 16x16 blocks) unless it is the rest: where a warp's pixels take longer than the target, part of
// a second wave on some SMs doubles the launch without shortening the next.
inline LaunchSize next_launch(const LaunchSizing& s) {
  if (s.left == 0) return {};
  if (s.target_ms <= 0) return {s.left, s.max_iter};
  const unsigned wave =
      std::max(1u, (s.min_tiles + kWarpsPerBlock - 1) / kWarpsPerBlock) * kWarpsPerBlock;
  const double full = std::max<double>(wave, s.full_tiles);
  double tiles = wave, budget = std::min(s.max_iter, kFirstBudget);
  if (s.last_tiles == 0) {
    if (s.previous_frame_ms >= 0 && s.previous_frame_ms < kWholeFrameShare * s.target_ms)
      return {s.left, s.max_iter};
  } else {
    double growth = kLaunchGrowth;
    if (s.last_ms > 0) growth = std::min(growth, s.target_ms / s.last_ms);
    tiles = s.last_tiles;
    budget = s.last_budget;
    const double least_budget = std::min<double>(s.max_iter, kBudgetQuantum);
    // Scales the launch's work by g, taken by each of the three in turn: its tiles towards a full
    // wave, its budget towards the limit (growing) or the least budget (shrinking), its tiles.
    auto rescale = [&](double g) {
      auto scale = [&g](double& x, double bound) {
        const double to = g >= 1 ? std::min(bound, x * g) : std::max(bound, x * g);
        if ((g >= 1) == (x < bound)) {
          // Exactly 1 once x took all of it: g * x / to rounds to 1 +- an ulp, and a budget
          // scaled by 1 - ulp loses a whole quantum when it is cut to one.
          g = to == x * g ? 1 : g * x / to;
          x = to;
        }
      };
      scale(tiles, full);
      scale(budget, g >= 1 ? static_cast<double>(s.max_iter) : least_budget);
      tiles = std::max<double>(wave, tiles * g);
    };
    rescale(growth);
    // And for the worst case: every tile's slowest lane running the whole budget, at the last
    // launch's time per warp-step. Short orbits (fixed costs, early escapes) make that rate high,
    // so a launch that meets long orbits after them stays within the target instead of taking
    // the budget the short ones let grow; shrunk in the same order.
    if (s.last_warp_steps > 0 && s.last_ms > 0) {
      const double most = s.target_ms * s.last_warp_steps / s.last_ms;
      if (tiles * budget > most) rescale(most / (tiles * budget));
    }
  }
  LaunchSize l;
  l.budget = s.max_iter;
  if (budget < s.max_iter) {
    const unsigned whole = static_cast<unsigned>(budget) / kBudgetQuantum * kBudgetQuantum;
    l.budget = std::min(s.max_iter, std::max(whole, kBudgetQuantum));
  }
  if (tiles >= s.left) {
    l.tiles = s.left;
  } else {
    const unsigned waves = static_cast<unsigned>(tiles) / wave * wave;
    l.tiles = std::min(std::max(waves, wave), s.left);
  }
  return l;
}

// The image's pixels in tiles [begin, end), whole 16x16 blocks: a launch's share of the frame.
// A row of blocks at a time: all of its columns are 16 pixels wide but the image's last.
inline unsigned long long pixels_in_tiles(const PixelGrid& g, unsigned begin, unsigned end) {
  if (g.width <= 0 || g.height <= 0) return 0;
  const unsigned width = static_cast<unsigned>(g.width), height = static_cast<unsigned>(g.height);
  const unsigned across = static_cast<unsigned>(blocks_across(g.width));
  const unsigned b0 = begin / kWarpsPerBlock, b1 = (end + kWarpsPerBlock - 1) / kWarpsPerBlock;
  unsigned long long n = 0;
  for (unsigned row = b0 / across; row < (b1 + across - 1) / across; ++row) {
    const unsigned first = row * across;
    const unsigned c0 = std::max(b0, first) - first, c1 = std::min(b1, first + across) - first;
    const unsigned w = std::min(c1 * kBlockW, width) - std::min(c0 * kBlockW, width);
    n += static_cast<unsigned long long>(w) * std::min<unsigned>(kBlockH, height - row * kBlockH);
  }
  return n;
}

// The passes of a frame's launches over its tiles. The first pass covers every tile; where its
// launches cut orbits at a budget below the iteration limit, each later pass covers the range of
// tiles whose pixels were left unfinished, going on from their saved orbits, until none is left.
class LaunchPasses {
 public:
  LaunchPasses() = default;  // nothing to launch: done()
  LaunchPasses(unsigned tiles, unsigned max_iter) : max_iter_(max_iter), end_(tiles) {}

  bool done() const { return next_ >= end_ && pending_end_ <= pending_begin_; }
  int pass() const { return pass_; }
  unsigned next_tile() const { return next_; }
  // The next launch, from the pass's next tile on.
  LaunchSize next(unsigned min_tiles, unsigned full_tiles, double target_ms,
                  double previous_frame_ms) const {
    LaunchSizing s;
    s.left = end_ - next_;
    s.min_tiles = min_tiles;
    s.full_tiles = full_tiles;
    s.target_ms = target_ms;
    s.max_iter = max_iter_;
    s.last_tiles = last_.tiles;
    s.last_budget = last_.budget;
    s.last_ms = last_ms_;
    s.last_warp_steps = last_warp_steps_;
    s.previous_frame_ms = previous_frame_ms;
    return next_launch(s);
  }
  // Launch `l` took `ms` for `warp_steps` (LaunchSizing) and left some of its pixels unfinished
  // or not.
  void launched(const LaunchSize& l, double ms, double warp_steps, bool left_unfinished) {
    if (left_unfinished) {
      if (pending_end_ <= pending_begin_) pending_begin_ = next_;
      pending_end_ = next_ + l.tiles;
    }
    next_ += l.tiles;
    last_ = l;
    last_ms_ = ms;
    last_warp_steps_ = warp_steps;
    if (next_ >= end_ && pending_end_ > pending_begin_) {
      ++pass_;
      next_ = pending_begin_;
      end_ = pending_end_;
      pending_begin_ = pending_end_ = 0;
    }
  }

 private:
  unsigned max_iter_ = 0;
  int pass_ = 0;
  // The pass goes up to tile end_, the next launch starts at next_; launches of this pass left
  // unfinished pixels in tiles [pending_begin_, pending_end_).
  unsigned next_ = 0, end_ = 0;
  unsigned pending_begin_ = 0, pending_end_ = 0;
  LaunchSize last_;  // the frame's previous launch (none: 0 tiles)
  double last_ms_ = 0, last_warp_steps_ = 0;
};

}  // namespace mp
