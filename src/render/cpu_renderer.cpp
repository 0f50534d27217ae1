#include "cpu_renderer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "pixel.h"

namespace mp {
namespace {

template <class V>
std::uint64_t render_rows(const PixelGrid& g, unsigned max_iter, float* out, unsigned* counts,
                          std::atomic<int>& next_row) {
  std::uint64_t iters = 0;
  for (int py; (py = next_row.fetch_add(1)) < g.height;) {
    for (int px = 0; px < g.width; ++px) {
      const PixelResult r = pixel_at<V>(g, px, py, max_iter);
      const std::size_t i = static_cast<std::size_t>(py) * g.width + px;
      out[i * kFloatsPerPixel] = r.smooth;
      out[i * kFloatsPerPixel + 1] = r.aux;
      if (counts) counts[i] = r.iters;
      iters += r.iters;
    }
  }
  return iters;
}

template <class V>
std::uint64_t render_all(unsigned threads, const PixelGrid& g, unsigned max_iter, float* out,
                         unsigned* counts) {
  std::atomic<int> next_row{0};
  std::vector<std::uint64_t> iters(threads, 0);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { iters[t] = render_rows<V>(g, max_iter, out, counts, next_row); });
  iters[0] = render_rows<V>(g, max_iter, out, counts, next_row);
  for (std::thread& th : pool) th.join();
  std::uint64_t total = 0;
  for (std::uint64_t n : iters) total += n;
  return total;
}

}  // namespace

void warp_efficiency_from_counts(const unsigned* counts, int width, int height, float* out) {
  const long long warps = warp_count(width, height);
  std::vector<unsigned> max(warps, 0);
  std::vector<std::uint64_t> sum(warps, 0);
  for (int py = 0; py < height; ++py)
    for (int px = 0; px < width; ++px) {
      const long long w = warp_of(px, py, width);
      const unsigned n = counts[static_cast<std::size_t>(py) * width + px];
      max[w] = std::max(max[w], n);
      sum[w] += n;
    }
  for (long long w = 0; w < warps; ++w)
    out[w] = max[w] ? static_cast<float>(sum[w] / (32.0 * max[w])) : 1.0f;
}

CpuRenderer::CpuRenderer(unsigned threads)
    : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {}

CpuFrameStats CpuRenderer::render(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                                  float* out, unsigned* counts) const {
  const auto t0 = std::chrono::steady_clock::now();
  CpuFrameStats s;
  s.threads = threads_;
  switch (variant) {
#define MP_CPU_CASE(V)                                                              \
  case VariantId::V:                                                                \
    s.pixel_iters = render_all<variants::V>(threads_, grid, max_iter, out, counts); \
    break;
    MANDELPIPE_VARIANTS(MP_CPU_CASE)
#undef MP_CPU_CASE
  }
  s.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace mp
