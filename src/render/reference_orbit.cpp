#include "render/reference_orbit.h"

#include <chrono>

namespace mp {
namespace {

// mpfr_t as a scoped object: every exit path clears what it set up.
class Mpfr {
 public:
  explicit Mpfr(int bits) { mpfr_init2(v_, bits); }
  ~Mpfr() { mpfr_clear(v_); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  mpfr_ptr get() { return v_; }

 private:
  mpfr_t v_;
};

}  // namespace

std::optional<ReferenceOrbit> compute_reference_orbit(mpfr_srcptr cx, mpfr_srcptr cy, int bits,
                                                      unsigned max_iter,
                                                      const std::atomic<bool>* cancel,
                                                      const std::function<void(double)>& progress) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_report = start;
  ReferenceOrbit orbit;
  orbit.bits = bits;
  orbit.z.reserve(std::min<std::size_t>(max_iter + 1u, 1u << 20));
  orbit.z.push_back({0.0, 0.0});
  Mpfr x(bits), y(bits), x2(bits), y2(bits), xy(bits), c_x(bits), c_y(bits);
  mpfr_set(c_x.get(), cx, MPFR_RNDN);
  mpfr_set(c_y.get(), cy, MPFR_RNDN);
  mpfr_set_zero(x.get(), 1);
  mpfr_set_zero(y.get(), 1);
  for (unsigned n = 0; n < max_iter; ++n) {
    // z^2 + c from the three products of z's parts, each rounded once at `bits`.
    mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
    mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
    mpfr_mul(xy.get(), x.get(), y.get(), MPFR_RNDN);
    mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
    mpfr_add(x.get(), x.get(), c_x.get(), MPFR_RNDN);
    mpfr_mul_2ui(xy.get(), xy.get(), 1, MPFR_RNDN);
    mpfr_add(y.get(), xy.get(), c_y.get(), MPFR_RNDN);
    const RefPoint p{mpfr_get_d(x.get(), MPFR_RNDN), mpfr_get_d(y.get(), MPFR_RNDN)};
    orbit.z.push_back(p);
    if (!(p.x * p.x + p.y * p.y <= kPerturbEscape2)) {
      orbit.escaped = true;
      break;
    }
    if ((n & 4095) == 4095) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return std::nullopt;
      const auto now = Clock::now();
      if (progress && now - last_report > std::chrono::milliseconds(250)) {
        last_report = now;
        progress(static_cast<double>(n) / max_iter);
      }
    }
  }
  orbit.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return orbit;
}

}  // namespace mp
