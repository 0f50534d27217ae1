#include "render/perturbation_cpu.h"

#include "kernel_params.h"
#include "render/lockstep_rounds.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

namespace mp {
namespace {

// The kernels' tiles (16x2, numbered in rows relative to the rect), taken one at a time by the
// threads; for perturb's every step also the rounds its warps run in lockstep.
template <class D>
PerturbStats render_tiles(const DeepGrid& grid, PixelRect rect, RefOrbitView ref,
                          const BlaView<typename D::Bla>& bla, unsigned max_iter, float* out,
                          unsigned* counts, unsigned threads) {
  constexpr int kTileW = 16, kTileH = 2;
  const bool rounds = std::is_same_v<D, DeltaDouble> && bla.levels == 0;
  const int across = (rect.width + kTileW - 1) / kTileW;
  const int tiles = across * ((rect.height + kTileH - 1) / kTileH);
  threads = std::min<unsigned>(threads, std::max(tiles, 1));
  std::atomic<int> next_tile{0};
  std::vector<PerturbStats> part(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      PerturbStats& s = part[t];
      LaneOrbit lanes[32];
      for (int tile; (tile = next_tile.fetch_add(1)) < tiles;) {
        const int tx = tile % across, ty = tile / across;
        for (int lane = 0; lane < 32; ++lane) {
          LaneOrbit& l = lanes[lane];
          l.rebases.clear();
          const int x = tx * kTileW + lane % kTileW, y = ty * kTileH + lane / kTileW;
          l.live = x < rect.width && y < rect.height;
          if (!l.live) continue;
          const auto dc = D::of(pixel_dc(grid, rect.x0 + x, rect.y0 + y));
          const PerturbResult r =
              rounds ? perturb_orbit<D, true>(ref, bla, dc, max_iter,
                                              [&l](unsigned n) { l.rebases.push_back(n); })
                     : perturb_orbit<D, true>(ref, bla, dc, max_iter);
          l.escaped_at = r.escaped ? r.n : 0;
          const std::size_t i = static_cast<std::size_t>(y) * rect.width + x;
          out[i * kFloatsPerPixel] = perturb_smooth(r);
          out[i * kFloatsPerPixel + 1] = 0.0f;
          if (counts) counts[i] = r.n;
          s.pixel_iters += r.n;
          s.iterated += r.iterated;
          s.rebases += r.rebases;
        }
        if (rounds) {
          const WarpRounds w = lockstep_rounds(lanes, ref.last, max_iter);
          s.rounds += w.rounds;
          s.done_rounds += w.done_rounds;
          s.rebase_rounds += w.rebase_rounds;
        }
      }
    });
  for (std::thread& th : pool) th.join();
  PerturbStats total;
  for (const PerturbStats& p : part) total += p;  // the tallies; the wall time is the caller's
  total.rounds_counted = rounds;
  return total;
}

}  // namespace

PerturbStats render_perturbation_cpu(DeltaFormat format, const DeepGrid& grid, PixelRect rect,
                                     RefOrbitView ref, const BlaTables& bla, unsigned max_iter,
                                     float* out, unsigned* counts, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  PerturbStats s;
  // Tables too short to hold a run that is looked up are none, as on the GPU.
  auto view_of = [](const auto* table) {
    using View = decltype(table->view());
    return table && bla_usable(table->levels()) ? table->view() : View{};
  };
  if (format == DeltaFormat::Double) {
    const BlaView<BlaD> v = view_of(bla.dbl);
    s = render_tiles<DeltaDouble>(grid, rect, ref, v, max_iter, out, counts, threads);
  } else {
    const BlaView<BlaX> v = view_of(bla.ext);
    if (format == DeltaFormat::Extended)
      s = render_tiles<DeltaExp>(grid, rect, ref, v, max_iter, out, counts, threads);
    else if (ref.zf)
      s = render_tiles<DeltaFloat>(grid, rect, ref, view_of(bla.flt), max_iter, out, counts,
                                   threads);
    else
      throw std::invalid_argument("float differences need the orbit in float");
  }
  s.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace mp
