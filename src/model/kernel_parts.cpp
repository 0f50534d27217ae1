#include "model/kernel_parts.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <iterator>
#include <set>
#include <tuple>

#include "model/ordinary_path.h"
#include "model/refill_rounds.h"
#include "model/variant_table.h"
#include "perturbation.h"
#include "pixel.h"

namespace mp {
namespace {

template <class V>
BlockSchedule schedule_of() {
  BlockSchedule s;
  s.paired = V::kPaired;
  s.refill = V::kShape == variants::Shape::Refill;
  if constexpr (V::kPaired) {
    if (V::kFirstStepsPerCheck > 0) s.phases.push_back({V::kFirstStepsPerCheck, V::kFirstUntil});
    if (V::kLongStepsPerCheck > 0) {
      s.phases.push_back({V::kStepsPerCheck, V::kLongAfter});
      s.phases.push_back({V::kLongStepsPerCheck, 0});
    } else {
      s.phases.push_back({V::kStepsPerCheck, 0});
    }
  } else {
    s.phases.push_back({V::kStepsPerCheck, 0});
  }
  return s;
}

bool is_float_op(const std::string& base) {
  return base == "FFMA" || base == "FADD" || base == "FMUL" || base == "DFMA" || base == "DADD" ||
         base == "DMUL";
}
bool is_branch(const std::string& base) {
  return base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX";
}
bool touches_memory(const std::string& base) {
  static const std::set<std::string> memory = {"ST",  "STG",  "STS",   "STL",   "LDG", "LD",
                                               "LDS", "ATOM", "ATOMG", "ATOMS", "RED", "REDG"};
  return memory.count(base) > 0;
}

struct Span {
  std::size_t first = 0, last = 0;
  bool contains(const Span& o) const { return first <= o.first && o.last <= last; }
  bool holds(std::size_t i) const { return first <= i && i <= last; }
};

// Every backward branch whose target comes before it in the listing: [target, branch].
std::vector<Span> loops_of(const sass::Function& f) {
  std::vector<Span> loops;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    const sass::Instruction& br = f.code[i];
    if (!br.branch_target || *br.branch_target > br.address) continue;
    for (std::size_t j = 0; j <= i; ++j)
      if (f.code[j].address == *br.branch_target) {
        loops.push_back({j, i});
        break;
      }
  }
  return loops;
}

// Where perturb_kernel's parameters (cuda/perturbation_kernel.cu: the orbit's view, the tables'
// view, the grid, ...) hold the exponents of the grid's offsets from the reference, dc0x and dc0y,
// in constant bank 0: the parameters start at 0x210 from sm_90 on and at 0x160 before (the
// ABI's), each at its alignment.
std::vector<unsigned> grid_offset_exponents(int arch) {
  const std::size_t base = arch >= 90 ? 0x210 : 0x160;
  const auto align = [](std::size_t n, std::size_t a) { return (n + a - 1) / a * a; };
  const std::size_t bla = align(sizeof(RefOrbitView), alignof(BlaView<BlaD>));
  const std::size_t grid = base + align(bla + sizeof(BlaView<BlaD>), alignof(DeepGrid));
  return {static_cast<unsigned>(grid + offsetof(DeepGrid, dc0x) + offsetof(FloatExp, e)),
          static_cast<unsigned>(grid + offsetof(DeepGrid, dc0y) + offsetof(FloatExp, e))};
}

// The instruction at `address`, or f.code.size().
std::size_t index_of(const sass::Function& f, unsigned address) {
  for (std::size_t j = 0; j < f.code.size(); ++j)
    if (f.code[j].address == address) return j;
  return f.code.size();
}

// The first conditional branch in [from, to) forward to a target past `beyond`, and its target.
std::optional<Span> skip_past(const sass::Function& f, std::size_t from, std::size_t to,
                              std::size_t beyond) {
  for (std::size_t i = from; i < to; ++i) {
    const sass::Instruction& x = f.code[i];
    if (!is_branch(x.base()) || x.predicate.empty() || !x.branch_target) continue;
    const std::size_t j = index_of(f, *x.branch_target);
    if (j > beyond && j < f.code.size()) return Span{i, j};
  }
  return std::nullopt;
}

// Whether instruction x reads register `reg` (a source operand: after the destination).
bool reads(const sass::Instruction& x, const std::string& reg) {
  const std::size_t comma = x.operands.find(',');
  if (comma == std::string::npos) return false;
  const std::string sources = x.operands.substr(comma);
  for (std::size_t at = sources.find(reg); at != std::string::npos;
       at = sources.find(reg, at + 1)) {
    const std::size_t end = at + reg.size();
    const bool whole =
        (end == sources.size() || !std::isdigit(static_cast<unsigned char>(sources[end]))) &&
        at > 0 && !std::isalnum(static_cast<unsigned char>(sources[at - 1]));
    if (whole) return true;
  }
  return false;
}

// Lane refill's round (launch_refill.cuh) in the listing: each instruction of the warp's loop
// (`loop`, around the trip loop and the replay loop) outside those two by the path it is on
// (RefillPath; -1 elsewhere). A pass runs up to the branch that ends the warp (out of the loop);
// a round's finish is the code a first branch after it skips (around the replay loop); the take
// is the code around the atomic that a branch skips; the new pixels are an if and an else, the
// side that reads the take's result the new tile's, each entered up to its first branch to their
// join and run on past it where its tile is one of the range's. Empty: found; else what was not.
std::string refill_round_paths(const sass::Function& f, const Span& loop,
                               const std::vector<Span>& orbit, std::vector<int>& path) {
  if (orbit.size() != 2) return "lane refill's listing holds no trip loop and replay loop";
  const Span trip = orbit[0], replay = orbit[1];
  const auto out = skip_past(f, trip.last + 1, replay.first, loop.last);
  if (!out) return "lane refill's loop has no branch that ends the warp after its trips";
  const auto finish = skip_past(f, out->first + 1, replay.first, replay.last);
  if (!finish) return "lane refill's round has no branch around its replay";
  std::size_t atom = loop.last;
  for (std::size_t i = finish->last; i < loop.last; ++i)
    if (f.code[i].base() == "ATOMG" || f.code[i].base() == "ATOM") {
      atom = i;
      break;
    }
  const auto take = atom < loop.last ? skip_past(f, finish->last, atom, atom) : std::nullopt;
  if (!take) return "lane refill's round has no take of a tile behind a branch";
  // The if and the else of the new pixels: a branch to the else, whose instruction before it is
  // an unconditional branch over it to the join.
  std::optional<Span> then, other;
  for (std::size_t i = take->last; i < loop.last && !then; ++i) {
    const sass::Instruction& x = f.code[i];
    if (!is_branch(x.base()) || x.predicate.empty() || !x.branch_target) continue;
    const std::size_t e = index_of(f, *x.branch_target);
    if (e <= i + 1 || e > loop.last) continue;
    const sass::Instruction& jump = f.code[e - 1];
    if (jump.base() != "BRA" || !jump.predicate.empty() || !jump.branch_target) continue;
    const std::size_t join = index_of(f, *jump.branch_target);
    if (join <= e || join > loop.last) continue;
    then = Span{i + 1, e - 1};
    other = Span{e, join - 1};
  }
  if (!then) return "lane refill's round has no if and else of the new pixels";
  const std::string& taken = f.code[take->last - 1].operands;
  const std::string result = taken.substr(0, taken.find(','));
  auto reads_result = [&](const Span& s) {
    for (std::size_t i = s.first; i <= s.last; ++i)
      if (reads(f.code[i], result)) return true;
    return false;
  };
  if (reads_result(*then) == reads_result(*other))
    return "lane refill's new pixels: neither side alone reads the tile taken";
  const Span fresh = reads_result(*then) ? *then : *other;
  const Span current = reads_result(*then) ? *other : *then;
  auto mark = [&](std::size_t a, std::size_t b, RefillPath p) {
    for (std::size_t i = a; i <= b && i < path.size(); ++i) path[i] = static_cast<int>(p);
  };
  path.assign(f.code.size(), -1);
  mark(loop.first, loop.last, RefillPath::Round);
  mark(loop.first, out->first, RefillPath::Pass);
  mark(finish->first + 1, finish->last - 1, RefillPath::Finish);
  mark(take->first + 1, take->last - 1, RefillPath::NewTile);
  const std::size_t join = other->last + 1;
  for (const auto& [side, entered, started] :
       {std::tuple{fresh, RefillPath::FreshEntered, RefillPath::FreshStarted},
        std::tuple{current, RefillPath::CurrentEntered, RefillPath::CurrentStarted}}) {
    std::size_t split = side.last;  // the side's first branch to the join
    for (std::size_t i = side.first; i <= side.last; ++i) {
      const sass::Instruction& x = f.code[i];
      if (is_branch(x.base()) && x.branch_target && index_of(f, *x.branch_target) == join) {
        split = i;
        break;
      }
    }
    mark(side.first, split, entered);
    mark(split + 1, side.last, started);
  }
  for (const Span& l : orbit)
    for (std::size_t i = l.first; i <= l.last; ++i) path[i] = -1;
  return "";
}
}  // namespace

std::optional<BlockSchedule> block_schedule(VariantId v) {
  const std::optional<DeltaFormat> perturbation = variant_info(v).perturbation;
  // perturb: a thread a pixel, a step a trip with its tests (perturbation.h: perturb_orbit).
  if (perturbation == DeltaFormat::Double) return BlockSchedule{false, false, {{1, 0}}};
  if (perturbation) return std::nullopt;
  return with_plain_variant(v, [](auto variant) -> std::optional<BlockSchedule> {
    return schedule_of<decltype(variant)>();
  });
}

std::vector<OrbitRegion> orbit_regions(const BlockSchedule& s) {
  std::vector<OrbitRegion> r;
  for (int p = 0; p < static_cast<int>(s.phases.size()); ++p) {
    const int k = s.phases[p].block;
    if (s.paired) {
      r.push_back({RegionKind::Pairs, k, p});
      if (k > kReplaySteps && !s.refill) r.push_back({RegionKind::Pairs, kReplaySteps, p});
    } else if (k > 1) {
      r.push_back({RegionKind::Blocks, k, p});
    }
    r.push_back({RegionKind::Single, 1, p});
  }
  return r;
}

const char* kernel_part_name(KernelPart p) {
  switch (p) {
    case KernelPart::StepLoop: return "step loop";
    case KernelPart::PerBlock: return "per block";
    case KernelPart::PerPixel: return "per pixel";
    case KernelPart::PerLaunch: return "per launch";
  }
  return "?";
}

KernelCut cut_kernel(const sass::Function& f, VariantId v) {
  KernelCut cut;
  cut.arch = sass::arch_number(f.arch);
  const std::optional<BlockSchedule> schedule = block_schedule(v);
  if (!schedule) {
    cut.unusable = kPerturbationNotModelled;
    return cut;
  }
  cut.regions = orbit_regions(*schedule);
  const int per_copy = static_cast<int>(cut.regions.size());
  const bool perturbation = variant_info(v).perturbation.has_value();
  // A step's floating-point instructions, and the escape test's two (|z|^2's multiply and FMA);
  // perturb's tests are on z = Z + d (two additions) and compare |z|^2 with |d|^2 (two more).
  const InstrMix step = variant_info(v).step(cut.arch);
  const int f_step = static_cast<int>(step.fma + step.fp64 + 0.5);
  const int kTest = perturbation ? 6 : 2;
  auto float_ops = [&](const Span& l) {
    return static_cast<int>(
        std::count_if(f.code.begin() + l.first, f.code.begin() + l.last + 1,
                      [](const sass::Instruction& x) { return is_float_op(x.base()); }));
  };
  auto expected_ops = [&](const OrbitRegion& r) {
    switch (r.kind) {
      case RegionKind::Pairs: return 2 * r.block * f_step + 2 * kTest;
      case RegionKind::Blocks: return r.block * f_step + kTest;
      case RegionKind::Single: return f_step + kTest;
    }
    return 0;
  };
  const std::vector<Span> loops = loops_of(f);
  std::vector<Span> arithmetic, others;
  for (const Span& l : loops) {
    const bool inner = std::none_of(loops.begin(), loops.end(), [&](const Span& o) {
      return &o != &l && l.contains(o) && !(o.first == l.first && o.last == l.last);
    });
    // perturb's step loads the reference's next point: a load, no store.
    const bool memory = std::any_of(
        f.code.begin() + l.first, f.code.begin() + l.last + 1, [&](const sass::Instruction& x) {
          return touches_memory(x.base()) && !(perturbation && x.base() == "LDG");
        });
    (inner && !memory && float_ops(l) > 0 ? arithmetic : others).push_back(l);
  }
  std::sort(arithmetic.begin(), arithmetic.end(),
            [](const Span& a, const Span& b) { return a.first < b.first; });
  if (arithmetic.empty() || arithmetic.size() % per_copy != 0) {
    cut.unusable = "the listing holds " + std::to_string(arithmetic.size()) +
                   " loops of steps, not a whole number of the " + std::to_string(per_copy) +
                   " a pixel's orbit runs";
    return cut;
  }
  for (std::size_t i = 0; i < arithmetic.size(); ++i) {
    const OrbitRegion& r = cut.regions[i % per_copy];
    if (float_ops(arithmetic[i]) != expected_ops(r)) {
      cut.unusable = "loop " + std::to_string(i + 1) + " of the listing (at " +
                     std::to_string(f.code[arithmetic[i].first].address) + ") holds " +
                     std::to_string(float_ops(arithmetic[i])) +
                     " floating-point instructions where the orbit's blocks give " +
                     std::to_string(expected_ops(r));
      return cut;
    }
  }
  cut.copies = static_cast<int>(arithmetic.size()) / per_copy;
  const int last_phase = static_cast<int>(schedule->phases.size()) - 1;
  // The long blocks' loop: the one the model counted before it counted the whole kernel.
  auto main_loop = [&](const OrbitRegion& r) {
    const BlockPhase& lp = schedule->phases.back();
    if (r.phase != last_phase) return false;
    if (schedule->paired) return r.kind == RegionKind::Pairs && r.block == lp.block;
    return lp.block > 1 ? r.kind == RegionKind::Blocks : r.kind == RegionKind::Single;
  };
  // The loops around the orbit's: the innermost one that holds one of them is the tile loop (the
  // queue's), the one around it the queue's loop of units.
  std::optional<Span> tile_loop, unit_loop;
  for (const Span& o : others)
    if (o.contains(arithmetic.front()) && (!tile_loop || tile_loop->contains(o))) tile_loop = o;
  auto around = [&](const Span& in) {
    std::optional<Span> out;
    for (const Span& o : others)
      if (o.contains(in) && !(o.first == in.first && o.last == in.last) &&
          (!out || out->contains(o)))
        out = o;
    return out;
  };
  if (tile_loop) unit_loop = around(*tile_loop);
  // perturb's warps in lockstep (cuda/perturb_lockstep.cuh): between its steps' loop and its
  // tile loop a loop of rounds, one for each time the warp leaves the steps together.
  std::optional<Span> rounds_loop;
  if (perturbation && unit_loop) {
    rounds_loop = tile_loop;
    tile_loop = unit_loop;
    unit_loop = around(*tile_loop);
  }

  auto heavy_of = [&](std::size_t a, std::size_t b) {
    double h = 0;
    for (std::size_t i = a; i <= b; ++i) h += sass::fma_heavy_only(cut.arch, f.code[i].base());
    return h;
  };
  auto add = [&](KernelPart part, PieceCount count, int index, std::size_t a, std::size_t b) {
    if (a > b) return;
    KernelPiece p;
    p.part = part;
    p.count = count;
    p.index = index;
    p.mix = sass::mix_of(f, {a, b});
    p.heavy_only = heavy_of(a, b);
    p.first = a;
    p.last = b;
    cut.pieces.push_back(p);
  };
  // The orbit's loops; a pair's first block and its test, then the rest of the trip.
  for (std::size_t i = 0; i < arithmetic.size(); ++i) {
    const Span& l = arithmetic[i];
    const int region = static_cast<int>(i);  // copy * per_copy + the region
    const OrbitRegion& r = cut.regions[i % per_copy];
    const KernelPart part = main_loop(r) ? KernelPart::StepLoop : KernelPart::PerBlock;
    std::size_t exit = l.last;
    // Lane refill's trip runs both blocks whatever its lanes do: no exit within it. perturb's
    // step leaves at its escape test before the rebase test and the count: a warp whose last
    // lanes escape runs the trip up to there (its seconds are the trips that went on).
    if ((r.kind == RegionKind::Pairs && !schedule->refill) ||
        (perturbation && r.kind == RegionKind::Single))
      for (std::size_t j = l.first; j < l.last; ++j) {
        const sass::Instruction& x = f.code[j];
        if (is_branch(x.base()) && x.branch_target &&
            (*x.branch_target > f.code[l.last].address ||
             *x.branch_target < f.code[l.first].address)) {
          exit = j;
          break;
        }
      }
    add(part, PieceCount::RegionTrips, region, l.first, exit);
    add(part, PieceCount::RegionSeconds, region, exit + 1, l.last);
  }
  // The rest, a run of instructions of one context at a time.
  const bool queue = tile_loop.has_value();
  // Lane refill's round: the paths that only some rounds take (RefillPath).
  std::vector<int> refill_path;
  if (schedule->refill) {
    const std::string missing = tile_loop
                                    ? refill_round_paths(f, *tile_loop, arithmetic, refill_path)
                                    : "lane refill's listing has no loop around its trips";
    if (!missing.empty()) {
      cut.unusable = missing;
      return cut;
    }
  }
  // The queue's loop: a take runs the path that falls through each conditional branch (a unit
  // of the current segment, taken by lane 0 from the global counters), around the tile loop;
  // the rest of the loop's code runs when a warp changes segment.
  std::vector<bool> take_path(f.code.size(), false);
  if (unit_loop) {
    std::size_t i = unit_loop->first;
    for (std::size_t guard = 0; guard < f.code.size() && i < unit_loop->last; ++guard) {
      if (tile_loop->holds(i)) {
        i = tile_loop->last + 1;
        continue;
      }
      take_path[i] = true;
      const sass::Instruction& x = f.code[i];
      if (x.base() == "EXIT" && x.predicate.empty()) break;
      if (is_branch(x.base()) && x.predicate.empty() && x.branch_target) {
        const auto to = std::find_if(f.code.begin(), f.code.end(), [&](const sass::Instruction& y) {
          return y.address == *x.branch_target;
        });
        const std::size_t j = static_cast<std::size_t>(to - f.code.begin());
        if (j <= i || !unit_loop->holds(j)) break;
        i = j;
        continue;
      }
      ++i;
    }
    take_path[unit_loop->last] = true;  // the back edge
  }
  // The trap after the last EXIT (a branch to itself) and the padding after it never run.
  std::size_t trap = f.code.size();
  for (const Span& o : others)
    if (o.first == o.last) trap = std::min(trap, o.first);
  // A tile's SIMT efficiency for the divergence view (render_tile.cuh): a division, skipped by a
  // branch where the frame's pointer to them is null (a 64-bit test against zero). It runs only
  // in the visits of frames that keep them: not bench's, nor the window's without that view.
  std::vector<bool> efficiency(f.code.size(), false);
  auto index_at = [&](unsigned address) {
    for (std::size_t j = 0; j < f.code.size(); ++j)
      if (f.code[j].address == address) return j;
    return f.code.size();
  };
  for (std::size_t i = 1; i < f.code.size(); ++i) {
    const sass::Instruction& x = f.code[i];
    if (!is_branch(x.base()) || x.predicate.empty() || !x.branch_target) continue;
    const std::size_t to = index_at(*x.branch_target);
    if (to <= i || to >= f.code.size()) continue;
    // The pointer's test sets the predicate, or one that a test of the lane (perturb: lane 0
    // writes the figure) combines with it.
    auto setter_of = [&](std::size_t before, std::string p) {
      p.erase(0, p.find_first_not_of("@!"));
      return std::find_if(
          std::make_reverse_iterator(f.code.begin() + before), f.code.rend(),
          [&](const sass::Instruction& y) { return y.operands.rfind(p + ",", 0) == 0; });
    };
    auto tests_pointer = [](const sass::Instruction& y) {
      return y.opcode == "ISETP.NE.AND.EX" && y.operands.find("RZ") != std::string::npos;
    };
    auto setter = setter_of(i, x.predicate);
    if (setter != f.code.rend() && !tests_pointer(*setter) && setter->base() == "ISETP") {
      const std::string last = setter->operands.substr(setter->operands.rfind(' ') + 1);
      if (last != "PT")
        setter = setter_of(static_cast<std::size_t>(f.code.rend() - setter) - 1, last);
    }
    if (setter == f.code.rend() || !tests_pointer(*setter)) continue;
    const bool divides = std::any_of(f.code.begin() + i + 1, f.code.begin() + to,
                                     [](const sass::Instruction& y) { return y.base() == "FCHK"; });
    if (divides)
      for (std::size_t j = i + 1; j < to; ++j) efficiency[j] = true;
  }
  // A round's code outside the steps runs once a round (0), but for its two conditional paths
  // (perturb_lockstep.cuh): the finished lanes' reset (2), which ptxas predicates on some chips and
  // branches to on others, and the rebase (1); -1 elsewhere. The forward branches within the
  // round give them: either all to one join, the rebase after the last of them; or an if and
  // else, the reset first (it ends in the branch over the else to the join), the else's test
  // then the rebase.
  std::vector<int> round_code(f.code.size(), -1);
  if (rounds_loop) {
    const Span& steps = arithmetic.front();
    std::vector<std::pair<std::size_t, std::size_t>> tests, jumps;  // (branch, target)
    for (std::size_t i = rounds_loop->first; i <= rounds_loop->last; ++i) {
      if (steps.holds(i)) continue;
      round_code[i] = 0;
      const sass::Instruction& x = f.code[i];
      if (!is_branch(x.base()) || !x.branch_target) continue;
      const std::size_t to = index_at(*x.branch_target);
      if (to <= i || !rounds_loop->holds(to)) continue;  // the back edge, the ways out
      (x.predicate.empty() ? jumps : tests).push_back({i, to});
    }
    const bool one_join =
        jumps.empty() && std::all_of(tests.begin(), tests.end(), [&](const auto& b) {
          return b.second == tests.back().second;
        });
    const bool if_else = jumps.size() == 1 && tests.size() == 2 &&
                         tests[0].second == jumps[0].first + 1 &&
                         tests[1].first == tests[0].second && tests[1].second == jumps[0].second;
    if (!one_join && !if_else) {
      cut.unusable =
          "perturb's round branches in ways other than a finished lane's reset and a "
          "rebase (at " +
          std::to_string(f.code[(tests.empty() ? jumps : tests).front().first].address) + ")";
      return cut;
    }
    if (if_else)
      for (std::size_t j = tests[0].first + 1; j <= jumps[0].first; ++j) round_code[j] = 2;
    if (!tests.empty())
      for (std::size_t j = tests.back().first + 1; j < tests.back().second; ++j) round_code[j] = 1;
  }
  // perturb's set-up (the tile loop's code before the step loop) as an ordinary pixel walks it,
  // once for each way the grid's offsets from the reference may be zero (the reference at the
  // view's centre: then the additions of an offset skip theirs); and a tile's take, up to the
  // branch out of the tile loop, runs once more a warp (the take that finds none left).
  std::vector<unsigned> setup(f.code.size(), 0xf);
  std::size_t take_end = 0;
  if (perturbation) {
    if (!tile_loop) {
      cut.unusable = "no loop of tiles around perturb's step loop";
      return cut;
    }
    const std::size_t setup_end = rounds_loop ? rounds_loop->first : arithmetic.front().first;
    const OrdinaryPaths paths =
        ordinary_paths(f, tile_loop->first, setup_end, grid_offset_exponents(cut.arch));
    if (!paths.ok || std::count(paths.params_read.begin(), paths.params_read.end(), true) != 2) {
      cut.unusable = paths.ok ? "perturb's set-up reads no offsets of the grid where the "
                                "kernel's parameters hold them"
                              : "perturb's set-up branches more ways than can be walked";
      return cut;
    }
    for (std::size_t j = 0; j < paths.reached.size(); ++j)
      setup[tile_loop->first + j] = paths.reached[j];
    for (std::size_t j = tile_loop->first; j < setup_end; ++j) {
      const sass::Instruction& x = f.code[j];
      if (is_branch(x.base()) && x.branch_target && !tile_loop->holds(index_at(*x.branch_target))) {
        take_end = j + 1;
        break;
      }
    }
  }
  // Grid and Rows: a block's tally loop (thread 0 over its warps' slots), and its atomics after
  // it, once a block.
  std::optional<Span> tally_loop;
  for (const Span& o : others)
    if (o.first != o.last && !o.contains(arithmetic.front()) &&
        !(unit_loop && unit_loop->contains(o)))
      tally_loop = o;
  auto context = [&](std::size_t i) -> std::pair<PieceCount, int> {
    if (i >= trap) return {PieceCount::Never, 0};
    if (efficiency[i]) return {PieceCount::Efficiencies, 0};
    if (tally_loop && tally_loop->holds(i)) return {PieceCount::BlockTallies, 0};
    if (tally_loop && i > tally_loop->last) return {PieceCount::Blocks, 0};
    if (perturbation && tile_loop->holds(i) && i < take_end) return {PieceCount::QueueTrips, 0};
    if (queue && !tile_loop->holds(i))
      return {!unit_loop || !unit_loop->holds(i) ? PieceCount::Warps
              : take_path[i]                     ? PieceCount::QueueTrips
                                                 : PieceCount::SegmentChanges,
              0};
    const std::size_t before = static_cast<std::size_t>(std::count_if(
        arithmetic.begin(), arithmetic.end(), [&](const Span& a) { return a.last < i; }));
    if (before == 0 || before == arithmetic.size())
      return {queue ? PieceCount::PixelVisits : PieceCount::Warps, 0};
    const int prev = static_cast<int>((before - 1) % per_copy),
              next = static_cast<int>(before % per_copy);
    const int copy = static_cast<int>(before / per_copy);
    if (next == 0) return {PieceCount::PixelVisits, 0};
    const int pp = cut.regions[prev].phase, np = cut.regions[next].phase;
    if (pp == np) return {PieceCount::PhaseReached, copy * (last_phase + 1) + np};
    // Between two phases: up to the last branch that skips the whole next phase, the earlier
    // one's; the next phase's set-up after it.
    std::size_t phase_end = before;
    while (phase_end + 1 < arithmetic.size() && (phase_end + 1) % per_copy != 0 &&
           cut.regions[(phase_end + 1) % per_copy].phase == np)
      ++phase_end;
    const unsigned beyond = f.code[arithmetic[phase_end].last].address;
    std::size_t split = arithmetic[before - 1].last;
    for (std::size_t j = arithmetic[before - 1].last + 1; j < arithmetic[before].first; ++j) {
      const sass::Instruction& x = f.code[j];
      if (is_branch(x.base()) && x.branch_target && *x.branch_target > beyond) split = j;
    }
    return {PieceCount::PhaseReached, copy * (last_phase + 1) + (i <= split ? pp : np)};
  };
  // The ways into each instruction outside the orbit's loops: from the kernel's start without a
  // loop between (bit 31), or from a loop's exits (exit_bit of the region, by escape where the
  // exit's predicate is an escape test's ordered float comparison, else by count). Code that only
  // a region's exits reach runs in the visits whose lanes left that way, not in every visit.
  constexpr std::uint32_t kFromStart = std::uint32_t{1} << 31;
  std::vector<std::uint32_t> ways(f.code.size(), 0);
  auto in_orbit = [&](std::size_t i) {
    return std::any_of(arithmetic.begin(), arithmetic.end(),
                       [&](const Span& a) { return a.holds(i); });
  };
  // Whether the predicate of branch i is an escape test's: its last setter before it in the loop.
  auto escape_predicate = [&](std::size_t i, std::size_t first) {
    std::string p = f.code[i].predicate;
    p.erase(0, p.find_first_not_of("@!"));
    for (std::size_t j = i; j-- > first;) {
      const std::string& ops = f.code[j].operands;
      const std::string dest = ops.substr(0, ops.find(','));
      const std::size_t comma = ops.find(',');
      const std::string second = comma == std::string::npos
                                     ? ""
                                     : ops.substr(comma + 2, ops.find(',', comma + 1) - comma - 2);
      if (dest != p && second != p) continue;
      const std::string& op = f.code[j].opcode;
      const bool ordered =
          op.find(".GT") != std::string::npos || op.find(".GE") != std::string::npos ||
          op.find(".LT") != std::string::npos || op.find(".LE") != std::string::npos;
      return (f.code[j].base() == "FSETP" || f.code[j].base() == "DSETP") && ordered;
    }
    return false;
  };
  std::vector<std::size_t> work;
  auto reach = [&](std::size_t j, std::uint32_t w) {
    if (j >= f.code.size() || in_orbit(j) || (ways[j] | w) == ways[j]) return;
    ways[j] |= w;
    work.push_back(j);
  };
  reach(0, kFromStart);
  for (std::size_t k = 0; k < arithmetic.size(); ++k) {
    const Span& l = arithmetic[k];
    for (std::size_t i = l.first; i <= l.last; ++i) {
      const sass::Instruction& x = f.code[i];
      if (!is_branch(x.base())) continue;
      const bool conditional = !x.predicate.empty();
      // A branch on two predicates (`@!P0 BRA P1, target`: on while inside and below the count)
      // leaves both ways at once.
      std::string second = x.operands.substr(0, x.operands.find(','));
      second.erase(0, second.find_first_not_of('!'));
      const bool both = second.size() > 1 && second[0] == 'P' &&
                        std::isdigit(static_cast<unsigned char>(second[1]));
      const std::uint32_t bit =
          both ? exit_bit(k % per_copy, true) | exit_bit(k % per_copy, false)
               : exit_bit(k % per_copy, conditional && escape_predicate(i, l.first));
      if (x.branch_target) {
        const std::size_t to = index_at(*x.branch_target);
        if (!l.holds(to)) reach(to, bit);
      }
      if (i == l.last && conditional) reach(i + 1, bit);  // the back edge not taken
    }
  }
  while (!work.empty()) {
    const std::size_t i = work.back();
    work.pop_back();
    const sass::Instruction& x = f.code[i];
    const bool conditional = !x.predicate.empty();
    if (is_branch(x.base()) && x.branch_target) reach(index_at(*x.branch_target), ways[i]);
    if (is_branch(x.base()) && !x.branch_target) continue;  // BRX, JMX: not followed
    if ((x.base() == "EXIT" || is_branch(x.base())) && !conditional) continue;
    reach(i + 1, ways[i]);
  }
  auto part_of = [&](PieceCount c) {
    switch (c) {
      case PieceCount::PhaseReached: return KernelPart::PerBlock;
      case PieceCount::QueueTrips:
      case PieceCount::SegmentChanges: return KernelPart::PerLaunch;
      case PieceCount::Warps: return queue ? KernelPart::PerLaunch : KernelPart::PerPixel;
      case PieceCount::Rounds:
      case PieceCount::DoneRounds:
      case PieceCount::RebaseRounds: return KernelPart::PerBlock;
      default: return KernelPart::PerPixel;
    }
  };
  // Code between and after the orbit's loops that only some of its loops' exits reach.
  struct Context {
    PieceCount count = PieceCount::Never;
    int index = 0;
    std::uint32_t exits = 0;
    bool operator!=(const Context& o) const {
      return count != o.count || index != o.index || exits != o.exits;
    }
  };
  // The kernel's end: its last EXIT before the trap. Code after it that no branch reaches is a
  // subroutine (a division's slow path, called where FCHK finds its operands out of the fast
  // path's range): counted as never run.
  std::size_t end_of_kernel = trap;
  for (std::size_t i = 0; i < trap; ++i)
    if (f.code[i].base() == "EXIT" && f.code[i].predicate.empty()) end_of_kernel = i;
  auto context_of = [&](std::size_t i) -> Context {
    if (end_of_kernel < i && i < trap && ways[i] == 0) return {PieceCount::Never, 0, 0};
    if (round_code[i] >= 0)
      return {round_code[i] == 2   ? PieceCount::DoneRounds
              : round_code[i] == 1 ? PieceCount::RebaseRounds
                                   : PieceCount::Rounds,
              0, 0};
    if (!refill_path.empty() && refill_path[i] >= 0)
      return {PieceCount::RefillPaths, refill_path[i], 0};
    if (setup[i] == 0) return {PieceCount::Unusual, 0, 0};
    if (setup[i] != 0xf) return {PieceCount::GridOffsets, 0, setup[i]};
    const auto [count, index] = context(i);
    const std::size_t before = static_cast<std::size_t>(std::count_if(
        arithmetic.begin(), arithmetic.end(), [&](const Span& a) { return a.last < i; }));
    // A pixel's code: between the orbit's loops, and after them (the grid's and the rows'
    // warps run it once; the queue's per tile).
    const bool orbit_code = count == PieceCount::PhaseReached || count == PieceCount::PixelVisits ||
                            (count == PieceCount::Warps && !queue && before > 0);
    if (!orbit_code || before == 0 || ways[i] == 0 || (ways[i] & kFromStart))
      return {count, index, 0};
    // The ways in are exact where they are escapes only (an escaped lane goes straight to its
    // finish) or all from the phase of the loop just before: a way from an earlier phase came
    // around the loops between by the branches that skip a loop, which most lanes did not take.
    bool escapes = true, this_phase = true;
    const int phase = cut.regions[(before - 1) % per_copy].phase;
    for (std::size_t r = 0; r < static_cast<std::size_t>(per_copy); ++r) {
      const std::uint32_t either = exit_bit(r, true) | exit_bit(r, false);
      if (ways[i] & exit_bit(r, false)) escapes = false;
      if ((ways[i] & either) && cut.regions[r].phase != phase) this_phase = false;
    }
    if (!escapes && !this_phase) return {count, index, 0};
    return {PieceCount::ExitPaths, static_cast<int>((before - 1) / per_copy), ways[i]};
  };
  std::size_t run_start = 0;
  Context run_context{};
  bool in_run = false;
  for (std::size_t i = 0; i <= f.code.size(); ++i) {
    const bool orbit = i < f.code.size() && in_orbit(i);
    const bool end = i == f.code.size() || orbit;
    const Context c = end ? run_context : context_of(i);
    if (in_run && (end || c != run_context)) {
      const KernelPart part =
          run_context.count == PieceCount::RefillPaths
              ? (run_context.index == static_cast<int>(RefillPath::NewTile) ? KernelPart::PerLaunch
                 : run_context.index == static_cast<int>(RefillPath::Pass)  ? KernelPart::PerBlock
                                                                            : KernelPart::PerPixel)
          : run_context.count == PieceCount::ExitPaths
              ? (context(run_start).first == PieceCount::PhaseReached ? KernelPart::PerBlock
                                                                      : KernelPart::PerPixel)
              : part_of(run_context.count);
      add(part, run_context.count, run_context.index, run_start, i - 1);
      cut.pieces.back().exits = run_context.exits;
      in_run = false;
    }
    if (!end && !in_run) {
      in_run = true;
      run_start = i;
      run_context = c;
    }
  }
  return cut;
}

}  // namespace mp
