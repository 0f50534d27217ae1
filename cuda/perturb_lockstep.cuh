// The every-step perturbation loop with the warp in lockstep: its 32 lanes step together and
// leave the loop together once any lane escapes or rebases (a vote each step), so that the
// rebase's instructions run only in the steps that need one instead of predicated off in every
// step, as perturb_orbit's loop has them. Double and extended-range differences; the pixels'
// counts and values are perturb_orbit's.
#pragma once

#include "perturbation.h"

namespace mp {

// Every lane of the warp calls it together; `live`: the lane has a pixel (the others step a
// difference of 0 against dc = 0, which stays on the reference orbit, and vote only at its last
// point). The result's rounds are the warp's: its exits from the steps' loop (a lane's escape or
// rebase, the limit), those of them in which a lane had finished and those in which a lane
// rebased (the whole-kernel model's counts: ptxas branches to the finished lanes' reset on some
// chips, docs/model.md).
template <class D>
__device__ __forceinline__ PerturbResult perturb_orbit_lockstep(RefOrbitView ref, typename D::Dc dc,
                                                                unsigned max_iter, bool live) {
  static_assert(!D::kFloat, "the float differences test z in their own arithmetic");
  PerturbResult r;
  typename D::Value d{};
  unsigned m = 0, n = 0;
  RefPoint z{};
  bool done = !live;
  if (done) dc = D::of(ComplexExp{});
  while (n < max_iter) {
    double zx = 0, zy = 0;
    bool escape = false, rebase = false;
    for (;;) {
      d = D::step(d, z, dc, ref.z + m);
      ++m;
      ++n;
      double dx, dy;
      D::as_double(d, dx, dy);
      z = ref.z[m];
      zx = z.x + dx;
      zy = z.y + dy;
      const double z2 = zx * zx + zy * zy;
      escape = z2 > kPerturbEscape2;
      rebase = z2 < dx * dx + dy * dy || m == ref.last;
      if (__any_sync(0xffffffffu, escape || rebase) || n >= max_iter) break;
    }
    ++r.rounds;
    if (escape && !done) {
      r.escaped = true;
      r.n = n;
      r.zx = zx;
      r.zy = zy;
      done = true;
    }
    r.done_rounds += __any_sync(0xffffffffu, done);
    r.rebase_rounds += __any_sync(0xffffffffu, rebase && !done);
    if (done) {
      // Back to the reference's start with nothing to add: no vote until its last point.
      d = typename D::Value{};
      dc = D::of(ComplexExp{});
      m = 0;
      z = ref.z[0];
    } else if (rebase) {
      d = D::from_double(zx, zy, dc);
      m = 0;
      z = ref.z[0];
      ++r.rebases;
    }
    if (__all_sync(0xffffffffu, done)) break;
  }
  if (!r.escaped) r.n = n;
  r.iterated = r.n;
  return r;
}

}  // namespace mp
