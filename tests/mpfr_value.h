// mpfr_t as a scoped test value, and FloatExp read from and compared with it.
#pragma once

#include <mpfr.h>

#include <string>

#include "floatexp.h"

namespace mp::test {

class Mp {
 public:
  explicit Mp(int bits = 256) { mpfr_init2(v_, bits); }
  Mp(const std::string& decimal, int bits) : Mp(bits) {
    mpfr_set_str(v_, decimal.c_str(), 10, MPFR_RNDN);
  }
  ~Mp() { mpfr_clear(v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }

 private:
  mpfr_t v_;
};

// m 2^e exactly.
inline void set_floatexp(mpfr_ptr out, FloatExp a) {
  mpfr_set_d(out, a.m, MPFR_RNDN);
  if (a.m != 0) mpfr_mul_2si(out, out, a.e, MPFR_RNDN);
}

}  // namespace mp::test
