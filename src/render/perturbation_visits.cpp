#include "render/perturbation_visits.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace mp {
namespace {

constexpr int kTileW = 16, kTileH = 2, kLanes = kTileW * kTileH;

// One lane's rare paths, a set of RarePath bits per trip that had any.
struct Recorder {
  std::vector<std::pair<unsigned, unsigned>>* steps;
  unsigned* trip_no;
  void operator()(RarePath p) const {
    if (steps->empty() || steps->back().first != *trip_no) steps->push_back({*trip_no, 0});
    steps->back().second |= 1u << p;
  }
  void trip() const { ++*trip_no; }
};

template <class D>
PerturbTally tiles(const DeepGrid& grid, RefOrbitView ref, unsigned max_iter, unsigned* counts,
                   unsigned threads) {
  const int across = (grid.width + kTileW - 1) / kTileW;
  const int tiles = across * ((grid.height + kTileH - 1) / kTileH);
  std::atomic<int> next{0};
  std::vector<PerturbTally> part(threads);
  std::vector<std::thread> pool;
  for (unsigned th = 0; th < threads; ++th)
    pool.emplace_back([&, th] {
      PerturbTally& s = part[th];
      std::vector<std::pair<unsigned, unsigned>> lane, all;
      for (int t; (t = next.fetch_add(1)) < tiles;) {
        all.clear();
        unsigned slowest = 0;
        for (int k = 0; k < kLanes; ++k) {
          const int x = t % across * kTileW + k % kTileW, y = t / across * kTileH + k / kTileW;
          if (x >= grid.width || y >= grid.height) continue;
          lane.clear();
          unsigned trip_no = ~0u;  // the first trip() makes it 0
          const PerturbResult r = perturb_orbit<D, false>(ref, {}, D::of(pixel_dc(grid, x, y)),
                                                          max_iter, Recorder{&lane, &trip_no});
          if (counts) counts[static_cast<std::size_t>(y) * grid.width + x] = r.n;
          s.pixel_iters += r.n;
          s.iterated += r.iterated;
          s.rebases += r.rebases;
          slowest = std::max(slowest, r.n);
          all.insert(all.end(), lane.begin(), lane.end());
        }
        s.warp_iterated += slowest;
        // The warp's trips: a visit where a lane took the path, whole where all 32 did.
        std::sort(all.begin(), all.end());
        for (std::size_t i = 0; i < all.size();) {
          std::size_t j = i;
          unsigned any = 0;
          int lanes[kRarePaths] = {};
          for (; j < all.size() && all[j].first == all[i].first; ++j) {
            any |= all[j].second;
            for (int p = 0; p < kRarePaths; ++p) lanes[p] += all[j].second >> p & 1;
          }
          for (int p = 0; p < kRarePaths; ++p) {
            s.rare[p] += any >> p & 1;
            s.rare_whole[p] += lanes[p] == kLanes;
          }
          i = j;
        }
      }
    });
  for (std::thread& th : pool) th.join();
  PerturbTally total;
  for (const PerturbTally& s : part) total += s;
  total.rare_counted = true;
  return total;
}

}  // namespace

PerturbTally rare_visits_cpu(DeltaFormat format, const DeepGrid& grid, RefOrbitView ref,
                             unsigned max_iter, unsigned* counts, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (format == DeltaFormat::Extended) return tiles<DeltaExp>(grid, ref, max_iter, counts, threads);
  if (format == DeltaFormat::Float) {
    if (!ref.zf) throw std::invalid_argument("no orbit in float for the float differences");
    return tiles<DeltaFloat>(grid, ref, max_iter, counts, threads);
  }
  return tiles<DeltaDouble>(grid, ref, max_iter, counts, threads);
}

}  // namespace mp
