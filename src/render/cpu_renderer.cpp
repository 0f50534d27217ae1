#include "cpu_renderer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "pixel.h"

namespace mp {
namespace {

using Clock = std::chrono::steady_clock;

// A slice's first guess when no rate is known yet, and how much faster than the last one the
// next may grow: a cheap region says little about the costly one that may follow.
constexpr std::uint64_t kFirstSlicePixels = 256;
constexpr std::uint64_t kSliceGrowth = 4;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// What the threads share: the next pixel to take and the time after which none is taken.
struct Work {
  const PixelGrid& g;
  unsigned max_iter;
  float* out;
  unsigned* counts;
  std::uint64_t end, chunk;
  Clock::time_point start;
  double stop_after_ms;
  std::atomic<std::uint64_t> next;
};

// Steps run and steps counted (more where an orbit was stopped as periodic).
struct Steps {
  std::uint64_t run = 0, counted = 0;
};

template <class V>
Steps render_chunks(Work& w) {
  Steps steps;
  const auto width = static_cast<std::uint64_t>(w.g.width);
  // Each thread takes one chunk whatever the time, so that every call makes progress.
  for (bool once = true; once || !(w.stop_after_ms > 0 && ms_since(w.start) >= w.stop_after_ms);
       once = false) {
    const std::uint64_t first = w.next.fetch_add(w.chunk);
    if (first >= w.end) break;
    const std::uint64_t last = std::min(first + w.chunk, w.end);
    for (std::uint64_t i = first; i < last; ++i) {
      const PixelResult r =
          pixel_at<V>(w.g, static_cast<int>(i % width), static_cast<int>(i / width), w.max_iter);
      w.out[i * kFloatsPerPixel] = r.smooth;
      w.out[i * kFloatsPerPixel + 1] = r.aux;
      if (w.counts) w.counts[i] = r.iters;
      steps.run += r.run;
      steps.counted += r.iters;
    }
  }
  return steps;
}

template <class V>
Steps render_all(unsigned threads, Work& w) {
  std::vector<Steps> steps(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { steps[t] = render_chunks<V>(w); });
  steps[0] = render_chunks<V>(w);
  for (std::thread& th : pool) th.join();
  Steps total;
  for (const Steps& s : steps) {
    total.run += s.run;
    total.counted += s.counted;
  }
  return total;
}

}  // namespace

CpuFrameStats& CpuFrameStats::operator+=(const CpuFrameStats& s) {
  ms += s.ms;
  pixel_iters += s.pixel_iters;
  pixel_counted += s.pixel_counted;
  pixels += s.pixels;
  threads = s.threads;
  slices += s.slices;
  return *this;
}

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
  return render_pixels(variant, grid, max_iter, 0,
                       static_cast<std::uint64_t>(grid.width) * grid.height, out, counts);
}

CpuFrameStats CpuRenderer::render_pixels(VariantId variant, const PixelGrid& grid,
                                         unsigned max_iter, std::uint64_t begin, std::uint64_t end,
                                         float* out, unsigned* counts, double stop_after_ms) const {
  const std::uint64_t n = end > begin ? end - begin : 0;
  // Chunks small enough to share a slice out evenly and to stop soon after its time is up (at
  // most about 2^20 steps, so that pixels of millions of steps are taken one by one), large
  // enough that taking one costs nothing beside its pixels.
  const std::uint64_t most =
      std::clamp<std::uint64_t>((1u << 20) / std::max(max_iter, 1u), 1, 1024);
  const std::uint64_t chunk = std::clamp<std::uint64_t>(n / (threads_ * 16ull), 1, most);
  Work w{grid, max_iter, out, counts, end, chunk, Clock::now(), stop_after_ms, {begin}};
  CpuFrameStats s;
  s.threads = threads_;
  s.slices = 1;
  const Steps steps =
      with_plain_variant(variant, [&](auto v) { return render_all<decltype(v)>(threads_, w); });
  s.pixel_iters = steps.run;
  s.pixel_counted = steps.counted;
  // Every chunk taken was finished: what was done is one run from `begin`.
  s.pixels = std::min(w.next.load(), end) - std::min(begin, end);
  s.ms = ms_since(w.start);
  return s;
}

CpuSlicedFrame::CpuSlicedFrame(VariantId variant, const PixelGrid& grid, unsigned max_iter)
    : variant_(variant),
      grid_(grid),
      max_iter_(max_iter),
      total_(static_cast<std::uint64_t>(grid.width) * grid.height) {}

std::uint64_t CpuSlicedFrame::next_slice_pixels(double target_ms) const {
  const std::uint64_t left = total_ - std::min(next_, total_);
  if (target_ms <= 0) return left;
  std::uint64_t n = kFirstSlicePixels;
  if (last_pixels_ > 0 && pixels_per_ms_ > 0)
    n = std::min(static_cast<std::uint64_t>(pixels_per_ms_ * target_ms),
                 last_pixels_ * kSliceGrowth);
  return std::clamp<std::uint64_t>(n, std::min<std::uint64_t>(left, 1), left);
}

const CpuFrameStats& CpuSlicedFrame::step(const CpuRenderer& r, float* out, unsigned* counts,
                                          double target_ms) {
  if (done()) return stats_;
  // Sized pieces until the time is used: a cheap frame is done in one step, as the first
  // pieces, sized before the rate is known, are small.
  CpuFrameStats slice;
  do {
    const double left_ms = target_ms > 0 ? target_ms - slice.ms : 0;
    const std::uint64_t n = next_slice_pixels(left_ms);
    const CpuFrameStats s =
        r.render_pixels(variant_, grid_, max_iter_, next_, next_ + n, out, counts, left_ms);
    next_ += s.pixels;
    last_pixels_ = s.pixels;
    pixels_per_ms_ = s.ms > 0 ? s.pixels / s.ms : 0;
    slice += s;
  } while (!done() && target_ms > 0 && slice.ms < target_ms);
  slice.slices = 1;
  stats_ += slice;
  return stats_;
}

}  // namespace mp
