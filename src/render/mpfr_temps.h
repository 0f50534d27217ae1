// MPFR numbers for the duration of a computation (every exit path clears them), and the step
// z <- z^2 + c on them, which the reference orbit, the nucleus search and the tests all take.
#pragma once

#include <mpfr.h>

#include <array>

namespace mp {

template <int N>
class MpfrTemps {
 public:
  explicit MpfrTemps(int bits) {
    for (mpfr_t& v : v_) mpfr_init2(v, bits);
  }
  ~MpfrTemps() {
    for (mpfr_t& v : v_) mpfr_clear(v);
  }
  MpfrTemps(const MpfrTemps&) = delete;
  MpfrTemps& operator=(const MpfrTemps&) = delete;
  mpfr_ptr operator[](int i) { return v_[i]; }

 private:
  std::array<mpfr_t, N> v_;
};

// z^2 + c from the three products of z's parts, each rounded once at the temps' bits; t holds 3.
inline void square_add(mpfr_ptr x, mpfr_ptr y, mpfr_srcptr cx, mpfr_srcptr cy, MpfrTemps<3>& t) {
  mpfr_sqr(t[0], x, MPFR_RNDN);
  mpfr_sqr(t[1], y, MPFR_RNDN);
  mpfr_mul(t[2], x, y, MPFR_RNDN);
  mpfr_sub(x, t[0], t[1], MPFR_RNDN);
  mpfr_add(x, x, cx, MPFR_RNDN);
  mpfr_mul_2ui(t[2], t[2], 1, MPFR_RNDN);
  mpfr_add(y, t[2], cy, MPFR_RNDN);
}

}  // namespace mp
