#include "render/perturbation_cpu.h"

#include "kernel_params.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mp {
namespace {

template <class D>
PerturbStats render_rows(const DeepGrid& grid, PixelRect rect, RefOrbitView ref,
                         const BlaView<typename D::Bla>& bla, unsigned max_iter, float* out,
                         unsigned* counts, unsigned threads) {
  std::atomic<int> next_row{0};
  std::vector<PerturbStats> part(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      PerturbStats& s = part[t];
      for (int y; (y = next_row.fetch_add(1)) < rect.height;)
        for (int x = 0; x < rect.width; ++x) {
          const ComplexExp dc = pixel_dc(grid, rect.x0 + x, rect.y0 + y);
          const PerturbResult r = perturb_orbit<D, true>(ref, bla, D::of(dc), max_iter);
          const std::size_t i = static_cast<std::size_t>(y) * rect.width + x;
          out[i * kFloatsPerPixel] = perturb_smooth(r);
          out[i * kFloatsPerPixel + 1] = 0.0f;
          if (counts) counts[i] = r.n;
          s.pixel_iters += r.n;
          s.iterated += r.iterated;
          s.rebases += r.rebases;
        }
    });
  for (std::thread& th : pool) th.join();
  PerturbStats total;
  for (const PerturbStats& s : part) total += s;  // the tallies; the wall time is the caller's
  return total;
}

}  // namespace

PerturbStats render_perturbation_cpu(DeltaFormat format, const DeepGrid& grid, PixelRect rect,
                                     RefOrbitView ref, const BlaTables& bla, unsigned max_iter,
                                     float* out, unsigned* counts, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max(rect.height, 1));
  PerturbStats s;
  if (format == DeltaFormat::Double) {
    const BlaView<BlaD> v = bla.dbl ? bla.dbl->view() : BlaView<BlaD>{};
    s = render_rows<DeltaDouble>(grid, rect, ref, v, max_iter, out, counts, threads);
  } else {
    const BlaView<BlaX> v = bla.ext ? bla.ext->view() : BlaView<BlaX>{};
    if (format == DeltaFormat::Extended)
      s = render_rows<DeltaExp>(grid, rect, ref, v, max_iter, out, counts, threads);
    else if (ref.zf)
      s = render_rows<DeltaFloat>(grid, rect, ref, bla.flt ? bla.flt->view() : BlaView<BlaF>{},
                                  max_iter, out, counts, threads);
    else
      throw std::invalid_argument("float differences need the orbit in float");
  }
  s.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

}  // namespace mp
