#include "model/frame_tally.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "kernel_params.h"
#include "model/refill_rounds.h"
#include "pixel.h"

namespace mp {
namespace {

constexpr int kMaxRegions = 16;

// One lane's pass through the orbit's regions: trips begun, a pair's second blocks, phases reached,
// and how it left each region it entered (exit_bit: by its escape test, or by its count).
struct LaneRun {
  std::array<unsigned, kMaxRegions> trips{}, seconds{};
  std::array<bool, kMaxRegions> reached{};
  std::uint32_t exits = 0;
  void leave(std::size_t region, bool escaped) { exits |= exit_bit(region, escaped); }
};

class LaneWalker {
 public:
  LaneWalker(const BlockSchedule& s, const std::vector<OrbitRegion>& regions, unsigned limit)
      : s_(s), regions_(regions), limit_(limit) {}

  // `count` steps: escaped at that step where below the limit, else ran to it.
  LaneRun walk(unsigned count) const {
    LaneRun r;
    const bool escaped = count < limit_;
    unsigned n = 0;
    std::size_t at = 0;  // the phase's first region
    for (int p = 0; p < static_cast<int>(s_.phases.size()); ++p) {
      const BlockPhase& ph = s_.phases[p];
      const unsigned lim = ph.until ? std::min(limit_, ph.until) : limit_;
      r.reached[p] = true;
      bool out = false;
      if (s_.paired) {
        out = pairs(r, at, ph.block, n, lim, escaped, count);
      } else if (ph.block > 1) {
        out = blocks(r, at, ph.block, n, lim, escaped, count);
      } else {
        out = single(r, at, n, lim, escaped, count);
      }
      if (out || n >= limit_) break;
      while (at < regions_.size() && regions_[at].phase == p) ++at;
    }
    return r;
  }

 private:
  // Paired blocks of k steps from n to lim, then the replay (pairs of kReplaySteps) and single
  // steps; true where the orbit escaped in them.
  bool pairs(LaneRun& r, std::size_t at, int k, unsigned& n, unsigned lim, bool escaped,
             unsigned e) const {
    const unsigned trip = 2u * static_cast<unsigned>(k);
    const unsigned count = (lim - n) / trip;
    if (escaped && e <= n + trip * count) {
      const unsigned j = (e - 1 - n) / trip;
      const bool second = e - n - trip * j > static_cast<unsigned>(k);
      r.trips[at] = j + 1;
      r.seconds[at] = j + second;
      n += trip * j + (second ? k : 0);
      r.leave(at, true);
    } else {
      r.trips[at] = r.seconds[at] = count;
      n += trip * count;
      r.leave(at, false);
    }
    if (k > kReplaySteps) return pairs(r, at + 1, kReplaySteps, n, lim, escaped, e);
    return single(r, at + 1, n, lim, escaped, e);
  }
  // Blocks of k steps with a test each (iterate_blocks), then single steps where any are left.
  bool blocks(LaneRun& r, std::size_t at, int k, unsigned& n, unsigned lim, bool escaped,
              unsigned e) const {
    const unsigned full = (lim - n) / k;
    if (escaped && e <= n + k * full) {
      const unsigned j = (e - 1 - n) / k;
      r.trips[at] = j + 1;
      n += k * j;
      r.leave(at, true);
    } else {
      r.trips[at] = full;
      n += k * full;
      r.leave(at, false);
    }
    if (n >= lim) return false;
    return single(r, at + 1, n, lim, escaped, e);
  }
  bool single(LaneRun& r, std::size_t at, unsigned& n, unsigned lim, bool escaped,
              unsigned e) const {
    const bool here = escaped && e <= lim;
    const unsigned to = here ? e : lim;
    r.trips[at] = to > n ? to - n : 0;
    // The trips that went on past the escape test (perturb's step tests before it counts).
    r.seconds[at] = r.trips[at] - (here && r.trips[at] > 0 ? 1 : 0);
    n = std::max(n, to);
    r.leave(at, here);
    return here;
  }

  const BlockSchedule& s_;
  const std::vector<OrbitRegion>& regions_;
  unsigned limit_;
};

// A warp's visit of one copy of the orbit's code: the lanes' runs, the warp's maxima.
struct WarpVisit {
  std::array<unsigned, kMaxRegions> trips{}, seconds{};
  std::array<bool, kMaxRegions> reached{};
  unsigned steps = 0;
  double lane_steps = 0;
  std::uint32_t exits = 0;  // every lane's ways out of the regions
  void add(const LaneRun& r, unsigned count, std::size_t regions) {
    exits |= r.exits;
    for (std::size_t i = 0; i < regions; ++i) {
      trips[i] = std::max(trips[i], r.trips[i]);
      seconds[i] = std::max(seconds[i], r.seconds[i]);
      reached[i] = reached[i] || r.reached[i];
    }
    steps = std::max(steps, count);
    lane_steps += count;
  }
};

}  // namespace

void take_rounds(FrameShape& shape, const PerturbTally& t) {
  shape.rounds = static_cast<double>(t.rounds);
  shape.done_rounds = static_cast<double>(t.done_rounds);
  shape.rebase_rounds = static_cast<double>(t.rebase_rounds);
}

int zero_grid_offsets(const DeepGrid& g) {
  return (g.dc0x.m == 0 ? 1 : 0) | (g.dc0y.m == 0 ? 2 : 0);
}

double queue_takes(const std::vector<unsigned>& tile_costs, unsigned tail) {
  std::array<unsigned, kCostBuckets> histogram{};
  for (unsigned c : tile_costs) ++histogram[cost_bucket(c)];
  const unsigned tiles = static_cast<unsigned>(tile_costs.size());
  const unsigned tail_start = tiles - std::min(tail, tiles);
  double units = 0;
  unsigned places = 0;  // the costliest bucket first
  for (int bucket = kCostBuckets - 1; bucket >= 0; --bucket) {
    const unsigned count = histogram[bucket];
    const unsigned group = bucket < kUnitBucket ? std::min(32u, 1u << (kUnitBucket - bucket)) : 1u;
    const unsigned start = places, end = places + count;
    places = end;
    const unsigned in_units = std::min(end, tail_start) - std::min(start, tail_start);
    units += (in_units + group - 1) / group;
  }
  return units + (tiles - tail_start);
}

FrameTally tally_frame(const BlockSchedule& s, const FrameShape& f, const unsigned* counts) {
  const std::vector<OrbitRegion> regions = orbit_regions(s);
  const std::size_t nr = regions.size(), np = s.phases.size();
  FrameTally t;
  t.copies = f.shape == variants::Shape::Rows ? 2 : 1;
  t.efficiencies = f.efficiencies;
  t.trips.assign(t.copies * nr, 0);
  t.seconds.assign(t.copies * nr, 0);
  t.reached.assign(t.copies * np, 0);
  if (f.width <= 0 || f.height <= 0 || nr > kMaxRegions) return t;
  const LaneWalker walker(s, regions, f.max_iter);
  auto visit_done = [&](const WarpVisit& v, int copy) {
    for (std::size_t i = 0; i < nr; ++i) {
      t.trips[copy * nr + i] += v.trips[i];
      t.seconds[copy * nr + i] += v.seconds[i];
    }
    for (std::size_t p = 0; p < np; ++p) t.reached[copy * np + p] += v.reached[p];
    t.warp_steps += v.steps;
    t.pixel_steps += v.lane_steps;
    if (v.exits) t.exit_visits[{copy, v.exits}] += 1;
  };
  auto count_at = [&](int px, int py) {
    return counts[static_cast<std::size_t>(py) * f.width + px];
  };
  // A warp on the `tile_w` pixels wide tile at x0, y0: lane k on (k % tile_w, k / tile_w).
  auto warp_at = [&](int x0, int y0, int tile_w) {
    WarpVisit v;
    for (int lane = 0; lane < 32; ++lane) {
      const int x = x0 + lane % tile_w, y = y0 + lane / tile_w;
      if (x >= f.width || y >= f.height) continue;
      const unsigned n = count_at(x, y);
      v.add(walker.walk(n), n, nr);
    }
    return v;
  };
  if (f.shape == variants::Shape::Refill) {
    // The warps' loops from a simulation of the launch's warps over the pixels' counts
    // (refill_rounds.h): the trips of two blocks, the replays' single steps, per round the
    // finish and refill code, and the paths that only some rounds take.
    const double resident = static_cast<double>(f.sm_count) * f.warps_per_sm;
    const double tiles = static_cast<double>(warp_count(f.width, f.height));
    const double warps =
        f.warps_launched > 0
            ? f.warps_launched
            : std::min(resident, std::ceil(tiles / kWarpsPerBlock) * kWarpsPerBlock);
    if (warps < 1 || nr != 2) {
      t.missing =
          "lane refill: its lanes change pixels inside a warp, so its trips and rounds come from "
          "a simulation of the launch's warps, and this frame does not say how many ran";
      return t;
    }
    if (f.launches > 1) {
      t.missing =
          "lane refill: its trips and rounds come from a simulation of one launch's warps, "
          "and this frame went in " +
          std::to_string(f.launches) + " launches whose tiles it does not keep";
      return t;
    }
    const RefillRounds r =
        simulate_refill(f.width, f.height, f.max_iter, s.phases.front().block, warps, counts);
    t.trips = {r.trips, r.replay_steps};
    t.seconds = {r.trips, 0};
    t.reached = {r.path(RefillPath::Round)};
    t.pixel_visits = r.path(RefillPath::Round);
    t.refill_paths.assign(r.paths.begin(), r.paths.end());
    t.warps = warps;
    t.blocks = warps / kWarpsPerBlock;
    t.block_tallies = warps;
    t.warp_steps = r.warp_steps;
    for (std::size_t i = 0; i < static_cast<std::size_t>(f.width) * f.height; ++i)
      t.pixel_steps += counts[i];
    return t;
  }
  if (f.shape == variants::Shape::Pixel) {
    // perturb (cuda/perturbation_kernel.cu): tiles of 16x2 pixels in row order, a warp's lane k
    // on (k % 16, k / 16), taken by resident warps of 256-thread blocks; each warp's last take
    // finds none left.
    t.zero_offsets = f.zero_offsets;
    t.rounds = f.rounds;
    t.done_rounds = f.done_rounds;
    t.rebase_rounds = f.rebase_rounds;
    constexpr int kTileW = 16, kTileH = 2;
    for (int y0 = 0; y0 < f.height; y0 += kTileH)
      for (int x0 = 0; x0 < f.width; x0 += kTileW) {
        const WarpVisit v = warp_at(x0, y0, kTileW);
        t.pixel_visits += 1;
        visit_done(v, 0);
      }
    const double resident = static_cast<double>(f.sm_count) * f.warps_per_sm;
    const double blocks_of_tiles = std::ceil(t.pixel_visits / kWarpsPerBlock) * kWarpsPerBlock;
    t.warps = f.warps_launched > 0 ? f.warps_launched : std::min(resident, blocks_of_tiles);
    t.queue_trips = t.pixel_visits + t.warps;
    return t;
  }
  if (f.shape == variants::Shape::Rows) {
    // Blocks of 256 pixels of a pair of rows; eight warps of 32 lanes, each on its row's pixel,
    // then the next row's (launch_rows.cuh).
    constexpr int kBlockPixels = 256;
    const int across = (f.width + kBlockPixels - 1) / kBlockPixels;
    for (int py = 0; py < f.height; py += 2)
      for (int c = 0; c < across; ++c) {
        t.block_tallies += kWarpsPerBlock;
        t.blocks += 1;
        for (int w = 0; w < kWarpsPerBlock; ++w) {
          t.warps += 1;
          for (int copy = 0; copy < 2; ++copy) {
            t.pixel_visits += copy == 0;  // a copy's code per warp: counted once a copy
            const int y = py + copy;
            WarpVisit v;
            if (y < f.height)
              for (int lane = 0; lane < 32; ++lane) {
                const int x = c * kBlockPixels + w * 32 + lane;
                if (x >= f.width) break;
                const unsigned n = count_at(x, y);
                v.add(walker.walk(n), n, nr);
              }
            visit_done(v, copy);
          }
        }
      }
    return t;
  }
  // Tiles of 16x2 pixels, eight to a 16x16 block, a warp's lane k on (k % 16, k / 16).
  std::vector<unsigned> tile_costs;
  const int bw = (f.width + kBlockW - 1) / kBlockW, bh = (f.height + kBlockH - 1) / kBlockH;
  for (int by = 0; by < bh; ++by)
    for (int bx = 0; bx < bw; ++bx)
      for (int w = 0; w < kWarpsPerBlock; ++w) {
        const WarpVisit v = warp_at(bx * kBlockW, by * kBlockH + w * 2, kBlockW);
        t.pixel_visits += 1;
        tile_costs.push_back(v.steps);
        visit_done(v, 0);
      }
  const double tiles = static_cast<double>(tile_costs.size());
  if (f.shape == variants::Shape::Grid) {
    t.warps = tiles;
    t.block_tallies = tiles;  // each block's thread 0 goes over its eight warps
    t.blocks = tiles / kWarpsPerBlock;
    return t;
  }
  // The queue: persistent warps, each taking units until none are left, then the tail's places.
  const double resident = static_cast<double>(f.sm_count) * f.warps_per_sm;
  const double blocks_of_tiles = std::ceil(tiles / kWarpsPerBlock) * kWarpsPerBlock;
  t.warps = f.warps_launched > 0 ? f.warps_launched : std::min(resident, blocks_of_tiles);
  const unsigned tail = f.by_cost ? std::min(static_cast<unsigned>(tiles) / kTailShare,
                                             static_cast<unsigned>(kTailTilesPerWarp * resident))
                                  : 0;
  const double takes = f.by_cost ? queue_takes(tile_costs, tail) : tiles;
  // A warp's trips of the queue's loop that change segment (launch_queue.cuh): with tiles in
  // order there is no costly queue, so a warp goes from the main queue to the tail and out, two;
  // ordered by cost a senior goes through the costly queue, the main one, the costly rest and the
  // tail before it leaves, a junior skips the first: counted four, the most.
  const double kSegmentChanges = f.by_cost ? 4 : 2;
  t.queue_trips = takes;
  t.segment_changes = kSegmentChanges * t.warps;
  return t;
}

}  // namespace mp
