// How render cuts an image: bands of whole output rows, each computed in pieces side by side,
// and the progress it prints while the work lasts.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>

#include "kernel_params.h"

namespace mp {

// Computed pixels in one piece of a band: one launch (or CPU pass), so this bounds a band's
// memory, and keeps each launch far below the kernel's 2^32 pixels.
inline constexpr long long kPiecePixels = 1LL << 22;
// Computed pixels a piece's side: within the kernel's 65536 whatever the image's shape.
inline constexpr int kPieceSide = 16384;

struct Plan {
  int width = 0, height = 0, ss = 1;
  int piece_columns = 0;  // output columns per piece
  int band_rows = 0;      // output rows per band

  int bands() const { return (height + band_rows - 1) / band_rows; }
  int pieces_across() const { return (width + piece_columns - 1) / piece_columns; }
  long long piece_pixels() const {
    return static_cast<long long>(piece_columns) * ss * band_rows * ss;
  }
  // A band's computed data, every piece across, in bytes.
  double band_bytes() const {
    return static_cast<double>(piece_pixels()) * pieces_across() * kFloatsPerPixel * sizeof(float);
  }
};

inline Plan plan_for(int width, int height, int ss) {
  Plan p;
  p.width = width;
  p.height = height;
  p.ss = ss;
  p.piece_columns = std::min(width, kPieceSide / ss);
  const long long rows = kPiecePixels / (static_cast<long long>(p.piece_columns) * ss * ss);
  p.band_rows = static_cast<int>(std::clamp<long long>(rows, 1, std::min(height, kPieceSide / ss)));
  return p;
}

// Progress on stderr for work that lasts: a line once kEvery has passed since the start or the
// last line. Callers report at least every kStep (a piece's rows go in runs that long), so a line
// comes within a second however heavy the view. The render's threads (the workers, the writer)
// share it.
class Progress {
 public:
  static constexpr double kEvery = 0.75, kStep = 0.2;
  // Quiet: says nothing (an MPI rank other than 0, whose progress rank 0's lines stand for).
  explicit Progress(bool quiet = false) : quiet_(quiet) {}
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  void report(const std::string& where, double fraction) {
    std::lock_guard<std::mutex> lock(mutex_);
    const double t = elapsed_s();
    if (quiet_ || t - last_ < kEvery) return;
    last_ = t;
    char line[160];
    // Tenths under 10%, so that a slow start (orbits of millions of steps) is seen to move.
    std::snprintf(
        line, sizeof line,
        fraction < 0.1 ? "mandelpipe: %s, %.1f%%, %.1f s\n" : "mandelpipe: %s, %.0f%%, %.1f s\n",
        where.c_str(), 100 * fraction, t);
    std::cerr << line << std::flush;
  }

 private:
  bool quiet_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double last_ = 0;
};

}  // namespace mp
