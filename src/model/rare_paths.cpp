#include "model/rare_paths.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "model/ordinary_path.h"

namespace mp {
namespace {

bool is_branch(const std::string& base) {
  return base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX";
}

// The path whose code a counter's atomic sits in: a whole-warp counter's path, and the parent of
// a path counted within another's code (Z is 0 in a step or test near 0).
int owner(int slot) {
  const int p = slot >= kRarePaths ? slot - kRarePaths : slot;
  return p == kNearStepAtZero ? kNearStep : p == kNearTestAtZero ? kNearTest : p;
}
// The path whose code holds another's: the rebase in a test near 0 (-1: none).
int nested_in(int path) {
  return path == kNearRebase ? kNearTest : -1;
}
int at_zero(int path) {
  return path == kNearStep ? kNearStepAtZero : path == kNearTest ? kNearTestAtZero : -1;
}

std::vector<std::size_t> indices(const std::vector<bool>& set, std::size_t first,
                                 std::size_t last) {
  std::vector<std::size_t> out;
  for (std::size_t i = first; i <= last; ++i)
    if (set[i]) out.push_back(i);
  return out;
}

}  // namespace

long long atomic_offset(const sass::Instruction& x) {
  const std::size_t open = x.operands.find('[');
  const std::size_t close = x.operands.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return 0;
  const std::string a = x.operands.substr(open + 1, close - open - 1);
  const std::size_t hex = a.find("0x");
  if (hex == std::string::npos) return 0;
  const long long v = std::strtoll(a.c_str() + hex, nullptr, 16);
  return hex > 0 && a[hex - 1] == '-' ? -v : v;
}

RarePaths rare_paths(const sass::Function& f, std::size_t first, std::size_t last) {
  RarePaths r;
  const std::size_t n = f.code.size(), end = last + 1;
  // The counting code: each shared atomic in the loop, by the counter its offset gives.
  std::map<std::size_t, int> slot_at;
  long long lowest = 0;
  bool any = false;
  for (std::size_t i = first; i <= last; ++i)
    if (f.code[i].base() == "ATOMS") {
      const long long o = atomic_offset(f.code[i]);
      lowest = any ? std::min(lowest, o) : o;
      any = true;
    }
  if (!any) {
    r.unusable =
        "the step loop holds no counting code of its rare paths (a build from before they were "
        "counted)";
    return r;
  }
  for (std::size_t i = first; i <= last; ++i)
    if (f.code[i].base() == "ATOMS") {
      const long long d = atomic_offset(f.code[i]) - lowest;
      if (d % 4 != 0 || d / 4 >= 2 * kRarePaths) {
        r.unusable = "a counter of the rare paths at an offset the warp's row does not hold";
        return r;
      }
      slot_at[i] = static_cast<int>(d / 4);
    }
  std::vector<bool> none(n, false), markers(n, false);
  for (const auto& [i, slot] : slot_at) markers[i] = true;
  // The common path: a trip of ordinary numbers, dropping every side that counts a rare path.
  const StretchWalk common = walk_stretch(f, first, end, first, none, markers);
  if (!common.ok || !common.survived) {
    r.unusable = common.ok ? "no path through the step loop counts no rare path"
                           : "the step loop branches more ways than can be walked";
    return r;
  }
  const auto index_at = [&](unsigned address) {
    for (std::size_t j = 0; j < n; ++j)
      if (f.code[j].address == address) return j;
    return n;
  };
  // The escape exit: the common path's first branch out of the loop.
  std::size_t exit = last;
  for (std::size_t i = first; i <= last; ++i) {
    const sass::Instruction& x = f.code[i];
    if (!common.reached[i] || !is_branch(x.base()) || !x.branch_target) continue;
    const std::size_t to = index_at(*x.branch_target);
    if (to < first || to > last) {
      exit = i;
      break;
    }
  }
  for (std::size_t i = first; i <= last; ++i)
    if (common.reached[i]) (i <= exit ? r.common : r.went_on).push_back(i);
  // Each side the common path does not take, walked to where it meets that path again: the rare
  // path whose counting code it runs (a path within another's walked on its own).
  std::vector<bool> claimed = common.reached;
  std::vector<std::pair<std::size_t, std::vector<bool>>> work;
  for (std::size_t e : common.untaken)
    if (e >= first && e <= last && !common.reached[e]) work.push_back({e, common.reached});
  std::set<std::size_t> seen;
  while (!work.empty()) {
    const auto [entry, stop] = work.back();
    work.pop_back();
    if (!seen.insert(entry).second) continue;
    const StretchWalk all = walk_stretch(f, first, end, entry, stop, none);
    if (!all.ok) {
      r.unusable = "a rare path of the step loop branches more ways than can be walked";
      return r;
    }
    std::set<int> met;
    for (const auto& [i, slot] : slot_at)
      if (all.reached[i]) met.insert(owner(slot));
    std::vector<int> outer;
    for (int p : met)
      if (!met.count(nested_in(p))) outer.push_back(p);
    if (outer.empty()) continue;  // no counted path: left unwalked
    if (outer.size() > 1) {
      r.unusable = "two rare paths of the step loop share code that counts both";
      return r;
    }
    const int path = outer.front();
    std::vector<bool> others(n, false);
    for (const auto& [i, slot] : slot_at)
      if (owner(slot) != path) others[i] = true;
    const StretchWalk own = walk_stretch(f, first, end, entry, stop, others);
    std::vector<bool> inner = stop;
    for (std::size_t i = first; i <= last; ++i)
      if (own.reached[i]) {
        inner[i] = true;
        claimed[i] = true;
      }
    const auto merge = [](std::vector<std::size_t>& into, const std::vector<std::size_t>& add) {
      into.insert(into.end(), add.begin(), add.end());
      std::sort(into.begin(), into.end());
      into.erase(std::unique(into.begin(), into.end()), into.end());
    };
    merge(r.region[path], indices(own.reached, first, last));
    if (at_zero(path) >= 0) {
      const StretchWalk zero = walk_stretch(f, first, end, entry, stop, others, true);
      merge(r.region[at_zero(path)], indices(zero.reached, first, last));
    }
    // Where the common path branched here, what it runs instead up to where the two meet.
    if (stop == common.reached) {
      std::size_t b = n;
      for (std::size_t i = first; i <= last && b == n; ++i) {
        const sass::Instruction& x = f.code[i];
        if (!common.reached[i] || !is_branch(x.base()) || x.predicate.empty()) continue;
        if ((x.branch_target && index_at(*x.branch_target) == entry) || i + 1 == entry) b = i;
      }
      if (b < n) {
        const std::size_t other = b + 1 == entry ? index_at(*f.code[b].branch_target) : b + 1;
        std::vector<bool> meet(n, false);
        for (std::size_t i = first; i <= last; ++i) meet[i] = !common.reached[i];
        for (std::size_t s : own.stops) meet[s] = true;
        if (!meet[other]) {
          const StretchWalk alt = walk_stretch(f, first, end, other, meet, none);
          merge(r.instead[path], indices(alt.reached, first, last));
        }
      }
    }
    for (std::size_t e : own.untaken)
      if (e >= first && e <= last && !inner[e]) work.push_back({e, inner});
  }
  for (int p = 0; p < kRarePaths; ++p)
    for (std::size_t i : r.region[p]) claimed[i] = true;
  for (std::size_t i = first; i <= last; ++i)
    if (!claimed[i]) r.unwalked.push_back(i);
  return r;
}

}  // namespace mp
