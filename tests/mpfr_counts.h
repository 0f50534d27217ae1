// Step counts iterated directly in MPFR, which the perturbation tests hold the renderers to, and
// which of a view's pixels their centre decides.
#pragma once

#include <mpfr.h>

#include <string>
#include <vector>

#include "render/mpfr_temps.h"

namespace mp::test {

// z^2 + c from 0 in `bits` until |z|^2 > 256: the step count, as the renderers count it.
inline unsigned direct_count(mpfr_srcptr cx, mpfr_srcptr cy, int bits, unsigned max_iter) {
  MpfrTemps<5> z(bits);
  MpfrTemps<3> t(bits);
  mpfr_ptr x = z[0], y = z[1], x2 = z[2], y2 = z[3], r = z[4];
  mpfr_set_zero(x, 1);
  mpfr_set_zero(y, 1);
  for (unsigned n = 1; n <= max_iter; ++n) {
    square_add(x, y, cx, cy, t);
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(r, x2, y2, MPFR_RNDN);
    if (mpfr_cmp_ui(r, 256) > 0) return n;
  }
  return max_iter;
}

// A view as the user types it: centre and span in decimal.
struct DecimalView {
  std::string cx, cy, span;
  unsigned max_iter = 0;
};

// MPFR's count at the point (px + 0.5, py + 0.5) of an image `width` x `height` of the view, in
// pixels from its top left: c = centre + span / width x (px + 0.5 - width / 2, height / 2 - py -
// 0.5), as DeepGrid places pixels. Fractional px, py give points between pixel centres.
inline unsigned count_at(const DecimalView& v, int width, int height, int bits, double px,
                         double py) {
  MpfrTemps<4> m(bits);
  mpfr_ptr cx = m[0], cy = m[1], s = m[2], t = m[3];
  mpfr_set_str(cx, v.cx.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(cy, v.cy.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(s, v.span.c_str(), 10, MPFR_RNDN);
  mpfr_div_ui(s, s, static_cast<unsigned long>(width), MPFR_RNDN);
  mpfr_mul_d(t, s, px + 0.5 - width / 2.0, MPFR_RNDN);
  mpfr_add(cx, cx, t, MPFR_RNDN);
  mpfr_mul_d(t, s, height / 2.0 - py - 0.5, MPFR_RNDN);
  mpfr_add(cy, cy, t, MPFR_RNDN);
  return direct_count(cx, cy, bits, v.max_iter);
}

// A view a scripted explorer reached: from -0.75+0.1i, span 0.01, forty zooms by ten, each toward
// one of the 2% of pixels with the most steps (the set's boundary), the limit twice the highest
// count seen. Unlike the regular spirals about i, most of it is filaments; the centre's orbit,
// the reference, escapes at step 5,180 where pixels run past 6,000.
inline const DecimalView kExploredView{"-0.744725992682126113838212247475905236988415078123",
                                       "0.101862208672522876511408617209092151289494453125",
                                       "1e-42", 14804};

// A sampled pixel and MPFR's count there. Near the set's boundary a pixel's count may change
// within a hair of its centre (its neighbourhood holds detail far finer than a pixel): where
// the counts a hair to either side differ from the centre's, the centre does not decide the
// count to that hair, and arithmetic that rounds the pixel's difference d a step to relative
// errors that move the pixel by more than the hair cannot be held to MPFR's count there. For
// differences in double (53 bits) 1e-10 of a pixel is such a hair; in float (24 bits) 1e-4.
struct DecidedSample {
  int px = 0, py = 0;
  unsigned count = 0;
  bool decided = true;
};

// Every `stride`-th pixel of every `stride`-th row, decided to `hair` (in pixels).
inline std::vector<DecidedSample> decided_samples(const DecimalView& v, int width, int height,
                                                  int bits, int stride, double hair) {
  std::vector<DecidedSample> out;
  for (int py = 0; py < height; py += stride)
    for (int px = 0; px < width; px += stride) {
      DecidedSample s{px, py, count_at(v, width, height, bits, px, py), true};
      for (const double d : {hair, -hair})
        s.decided = s.decided && count_at(v, width, height, bits, px + d, py + 0.7 * d) == s.count;
      out.push_back(s);
    }
  return out;
}

// How a frame's counts (row-major, `width` a row) meet the samples.
struct DecidedAgreement {
  int sampled = 0, exact = 0;  // every sample
  int decided = 0, decided_exact = 0, decided_within_one = 0;
};

inline DecidedAgreement agreement(const std::vector<DecidedSample>& samples,
                                  const std::vector<unsigned>& counts, int width) {
  DecidedAgreement a;
  for (const DecidedSample& s : samples) {
    const unsigned got = counts[static_cast<std::size_t>(s.py) * width + s.px];
    ++a.sampled;
    a.exact += got == s.count;
    if (!s.decided) continue;
    ++a.decided;
    a.decided_exact += got == s.count;
    a.decided_within_one += (got > s.count ? got - s.count : s.count - got) <= 1;
  }
  return a;
}

}  // namespace mp::test
