#include "model/refill_rounds.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "kernel_params.h"

namespace mp {
namespace {

constexpr int kLanes = 32;

// The frame as the launch sees it: its tiles, the lanes' pixels, each pixel's trips and replay.
struct RefillFrame {
  int width = 0, height = 0;
  unsigned max_iter = 0, trip = 0, block = 0, tiles = 0;
  const unsigned* counts = nullptr;
};

// One warp of launch_refill.cuh's render_refill, run up to its next take of a tile.
class RefillWarp {
 public:
  RefillWarp(const RefillFrame& f, unsigned index, unsigned given)
      : f_(f), tile_(index), given_(given), group_(index % kRefillCounters) {
    for (unsigned lane = 0; lane < kLanes; ++lane) start(lane, tile_, lane);
  }
  unsigned group() const { return group_; }
  double time() const { return time_; }

  // Runs passes of the warp's loop until it must take a tile (true) or it ends (false).
  // `taken`: where it was waiting for one, the counter's value the take returned.
  bool run(RefillRounds& r, const unsigned* taken) {
    for (;;) {
      unsigned fresh = tile_;
      if (taken) {
        fresh = given_ + group_ + *taken * kRefillCounters;
        r.paths[static_cast<int>(RefillPath::NewTile)] += 1;
        taken = nullptr;
      } else {
        trips(r);
        r.paths[static_cast<int>(RefillPath::Pass)] += 1;
        waiting_ = wait_;
        more_ = tile_ < f_.tiles;
        if (!more_ && has_ == 0) return false;
        round(r);
        need_ = static_cast<unsigned>(std::bitset<kLanes>(waiting_).count());
        left_ = kLanes - next_;  // unsigned, as the kernel's: past the tile's end it wraps
        if (more_ && need_ > left_) return true;
      }
      refill(r, fresh);
    }
  }

 private:
  // The trips of two blocks until enough lanes wait: the quorum's lane with the fewest left.
  void trips(RefillRounds& r) {
    const unsigned quorum = tile_ < f_.tiles ? kRefillWait : kLanes;
    const unsigned waiting = static_cast<unsigned>(std::bitset<kLanes>(wait_).count());
    if (waiting >= quorum) return;
    std::array<unsigned, kLanes> left{};
    unsigned running = 0;
    for (unsigned lane = 0; lane < kLanes; ++lane)
      if (!(wait_ >> lane & 1)) left[running++] = trips_left_[lane];
    const unsigned k = quorum - waiting - 1;
    std::nth_element(left.begin(), left.begin() + k, left.begin() + running);
    const unsigned t = left[k];
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      if (wait_ >> lane & 1) continue;
      trips_left_[lane] -= std::min(t, trips_left_[lane]);
      if (trips_left_[lane] == 0) wait_ |= 1u << lane;
    }
    r.trips += t;
    time_ += static_cast<double>(t) * f_.trip;
  }
  // The waiting lanes that hold a pixel replay it to its count and write it.
  void round(RefillRounds& r) {
    r.paths[static_cast<int>(RefillPath::Round)] += 1;
    time_ += 2.0 * f_.trip;
    const std::uint32_t finishing = wait_ & has_;
    if (!finishing) return;
    unsigned longest = 0;
    for (unsigned lane = 0; lane < kLanes; ++lane)
      if (finishing >> lane & 1) longest = std::max(longest, replay_[lane]);
    r.paths[static_cast<int>(RefillPath::Finish)] += 1;
    r.replay_steps += longest;
    time_ += longest;
    has_ &= ~finishing;
  }
  // New pixels for the waiting lanes in rank order: the rest of the current tile, then `fresh`.
  void refill(RefillRounds& r, unsigned fresh) {
    const bool take = more_ && need_ > left_;
    unsigned rank = 0;
    bool current = false, other = false;
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      if (!(waiting_ >> lane & 1)) continue;
      if (rank < left_) {
        start(lane, tile_, next_ + rank);
        current = true;
      } else {
        start(lane, fresh, rank - left_);
        other = true;
      }
      ++rank;
    }
    auto add = [&](RefillPath p, bool yes) { r.paths[static_cast<int>(p)] += yes ? 1 : 0; };
    add(RefillPath::CurrentEntered, current);
    add(RefillPath::CurrentStarted, current && tile_ < f_.tiles);
    add(RefillPath::FreshEntered, other);
    add(RefillPath::FreshStarted, other && fresh < f_.tiles);
    if (take) {
      tile_ = fresh;
      next_ = need_ - left_;
    } else {
      next_ += need_;
    }
  }
  // RefillPixel::start: pixel `place` of tile t, its trips until it waits and the steps it
  // replays then; a lane without a pixel (past the range or the image) waits.
  void start(unsigned lane, unsigned t, unsigned place) {
    const std::uint32_t bit = 1u << lane;
    has_ &= ~bit;
    wait_ |= bit;
    if (t >= f_.tiles) return;
    const unsigned ref = tile_ref(t, f_.width);
    const unsigned px = (ref & 0xffffu) | place % kBlockW, py = ref >> 16 | place / kBlockW;
    if (px >= static_cast<unsigned>(f_.width) || py >= static_cast<unsigned>(f_.height)) return;
    const unsigned c = f_.counts[static_cast<std::size_t>(py) * f_.width + px];
    const unsigned whole = f_.max_iter / f_.trip;                      // trips before it is blocked
    const unsigned found = std::max(1u, (c + f_.trip - 1) / f_.trip);  // the trip it escapes in
    unsigned trips = whole, from = whole * f_.trip;
    if (c < f_.max_iter && found <= whole) {
      trips = found;
      from = (found - 1) * f_.trip;
      if (c > from + f_.block) from += f_.block;  // escaped in the trip's second block
    }
    has_ |= bit;
    trips_left_[lane] = trips;
    replay_[lane] = c > from ? c - from : 0;
    if (trips > 0) wait_ &= ~bit;
  }

  const RefillFrame& f_;
  unsigned tile_, next_ = kLanes, given_, group_;
  std::uint32_t has_ = 0, wait_ = 0;
  std::array<unsigned, kLanes> trips_left_{}, replay_{};
  double time_ = 0;
  // The round waiting for its take: the lanes that wait, whether the range had tiles left, the
  // lanes' need and the current tile's pixels left.
  std::uint32_t waiting_ = 0;
  bool more_ = false;
  unsigned need_ = 0, left_ = 0;
};

}  // namespace

RefillRounds simulate_refill(int width, int height, unsigned max_iter, int block, double warps,
                             const unsigned* counts) {
  RefillRounds r;
  if (width <= 0 || height <= 0 || block <= 0 || warps < 1) return r;
  RefillFrame f;
  f.width = width;
  f.height = height;
  f.max_iter = max_iter;
  f.block = static_cast<unsigned>(block);
  f.trip = 2 * f.block;
  f.tiles = static_cast<unsigned>(warp_count(width, height));
  f.counts = counts;
  const unsigned launched = static_cast<unsigned>(warps);
  r.warps = launched;
  std::vector<RefillWarp> w;
  w.reserve(launched);
  // Warps waiting for a take, earliest first (the lower warp on a tie).
  using Waiting = std::pair<double, unsigned>;
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<Waiting>> takes;
  for (unsigned k = 0; k < launched; ++k) {
    w.emplace_back(f, k, launched);
    if (w.back().run(r, nullptr)) takes.push({w.back().time(), k});
  }
  std::array<unsigned, kRefillCounters> counter{};
  while (!takes.empty()) {
    const unsigned k = takes.top().second;
    takes.pop();
    const unsigned taken = counter[w[k].group()]++;
    if (w[k].run(r, &taken)) takes.push({w[k].time(), k});
  }
  r.warp_steps = r.trips * f.trip + r.replay_steps;
  return r;
}

}  // namespace mp
