#include "render/lockstep_rounds.h"

#include <algorithm>
#include <cstddef>

namespace mp {

WarpRounds lockstep_rounds(const LaneOrbit (&lanes)[32], unsigned last, unsigned max_iter) {
  WarpRounds w;
  bool done[32];
  std::size_t next_rebase[32] = {};
  bool any_done = false;
  for (int i = 0; i < 32; ++i) any_done = (done[i] = !lanes[i].live) || any_done;
  // The finished lanes go back to the reference's start in every round and vote again only at
  // its last point, `last` steps after the round.
  const unsigned period = std::max(last, 1u);
  for (unsigned t = 0; t < max_iter;) {
    unsigned next = any_done ? t + period : max_iter;
    for (int i = 0; i < 32; ++i) {
      if (done[i]) continue;
      const LaneOrbit& l = lanes[i];
      if (next_rebase[i] < l.rebases.size()) next = std::min(next, l.rebases[next_rebase[i]]);
      if (l.escaped_at) next = std::min(next, l.escaped_at);
    }
    t = std::min(next, max_iter);
    ++w.rounds;
    bool rebased = false, all_done = true;
    for (int i = 0; i < 32; ++i) {
      if (done[i]) continue;
      const LaneOrbit& l = lanes[i];
      if (l.escaped_at == t) {
        done[i] = any_done = true;  // an escape comes before the rebase test
        continue;
      }
      all_done = false;
      if (next_rebase[i] < l.rebases.size() && l.rebases[next_rebase[i]] == t) {
        rebased = true;
        ++next_rebase[i];
      }
    }
    w.done_rounds += any_done;
    w.rebase_rounds += rebased;
    if (all_done) break;
  }
  return w;
}

}  // namespace mp
