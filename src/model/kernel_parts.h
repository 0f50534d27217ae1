// The whole render kernel as the model counts it: a variant's blocks of steps (its schedule, from
// variants.h) and its SASS cut into pieces, each executed a number of times that the frame's own
// counts give (model/frame_tally.h). docs/model.md, "The whole kernel", says how.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "instr_mix.h"
#include "model/sass.h"
#include "variants.h"

namespace mp {

// Blocks of `block` steps up to `until` steps of an orbit (0: up to the iteration limit).
struct BlockPhase {
  int block = 1;
  unsigned until = 0;
};
// How a variant's orbit goes through its blocks (pixel.h: iterate_orbit): paired blocks (two a
// loop trip, an escaped block replayed in pairs of kReplaySteps and then single steps) or blocks
// with one escape test each (then single steps), phase after phase.
struct BlockSchedule {
  bool paired = false;
  // Lane refill (launch_refill.cuh): trips of two blocks while enough lanes run, an escaped
  // block replayed in single steps; its lanes change pixels within a warp, so its counts come
  // from a simulation of its warps (model/refill_rounds.h), not from each warp's lanes' maxima.
  bool refill = false;
  std::vector<BlockPhase> phases;
};
// Why perturb-x's and perturb-f's parts are not modelled (the overlay and bench say it).
inline constexpr const char* kPerturbationNotModelled =
    "perturb-x's and perturb-f's parts are not modelled: their steps renormalise the difference's "
    "exponent on paths taken as often as the pixel's own numbers say, which no tally of the frame "
    "gives (the listing's loop holds hundreds of instructions, a step runs tens)";
// The schedule of a plain variant, and of perturb (single steps, a thread a pixel); none for
// perturb-x and perturb-f.
std::optional<BlockSchedule> block_schedule(VariantId v);

// One loop of a pixel's orbit, in the order the code runs them: paired blocks, blocks with a
// test each, or single steps.
enum class RegionKind { Pairs, Blocks, Single };
struct OrbitRegion {
  RegionKind kind = RegionKind::Single;
  int block = 1;  // steps per block (1 for single steps)
  int phase = 0;  // the schedule's phase it belongs to
};
std::vector<OrbitRegion> orbit_regions(const BlockSchedule& s);

// A lane's way out of region `region` of the orbit (orbit_regions' index, at most 16): by its
// escape test, or by its count (the region's steps done, the phase's or the frame's limit).
constexpr std::uint32_t exit_bit(std::size_t region, bool escaped) {
  return std::uint32_t{1} << (2 * region + (escaped ? 0 : 1));
}

// The overlay's lines: the long blocks' loop (what the model counted before the whole kernel),
// the other loops and the code between the phases, each pixel's code (set-up, finish, colouring
// value, the warp's tallies), and what a launch adds (the queue, each warp's start and end).
enum class KernelPart { StepLoop, PerBlock, PerPixel, PerLaunch };
inline constexpr int kKernelPartCount = 4;
const char* kernel_part_name(KernelPart p);

// What a piece's instructions are multiplied by (FrameTally holds each).
enum class PieceCount {
  RegionTrips,     // region `index`: warp trips begun (all of a loop's body, or its first half)
  RegionSeconds,   // region `index`: warp trips that ran a pair's second block (perturb: the step
                   // past its escape test)
  PhaseReached,    // phase `index`: warp visits in which a lane reached it
  PixelVisits,     // warp visits of a pixel's code (a tile of the queue or the grid, a warp-row)
  Warps,           // warps launched
  QueueTrips,      // takes of the queue's loop: units and tail places
  SegmentChanges,  // the queue's loop's other trips: a warp's changes of segment
  ExitPaths,       // copy `index`: warp visits in which a lane left a region by one of `exits`
  BlockTallies,    // a block's tally loop (thread 0, a trip per warp of the block)
  Blocks,          // blocks launched (thread 0's atomics after its tally loop)
  Efficiencies,    // a tile's SIMT efficiency (a division), where the frame keeps them
  Never,           // the trap after EXIT, a division's slow path called out of line
  // perturb's set-up: code run only where the grid's offsets from the reference are zero (or
  // not) in the ways `exits` holds (bit z: FrameTally::zero_offsets == z), and the sides of its
  // range tests no ordinary pixel takes (zero, subnormal or out-of-range numbers: never counted).
  GridOffsets,
  Unusual,
  RefillPaths,  // lane refill: the rounds, passes and round paths `index` (RefillPath) ran
  // perturb's warps in lockstep: a round's code outside the steps, what only the rounds with a
  // finished lane run (where ptxas branches to their reset) and what only those with a rebase
  // run (FrameTally::rounds, done_rounds, rebase_rounds).
  Rounds,
  DoneRounds,
  RebaseRounds,
};

struct KernelPiece {
  KernelPart part = KernelPart::PerPixel;
  PieceCount count = PieceCount::PixelVisits;
  int index = 0;
  InstrMix mix;             // by the pipe table of the listing's architecture
  double heavy_only = 0;    // of mix.fma, fmaheavy only
  std::uint32_t exits = 0;  // ExitPaths: the regions' exits (exit_bit) whose lanes reach it
  std::size_t first = 0;    // the listing's instructions [first, last]
  std::size_t last = 0;
};

struct KernelCut {
  std::string unusable;  // empty: the pieces below cover every instruction; else why not
  std::vector<KernelPiece> pieces;
  std::vector<OrbitRegion> regions;  // of one copy of a pixel's orbit
  int copies = 0;                    // the orbit's copies in the listing (Shape::Rows: two rows)
  int arch = 0;
};

// Cuts the listing of variant v's kernel (find_render_kernel) into pieces: the loops of a pixel's
// orbit are found by their floating-point arithmetic (a pair of K-step blocks has 2K steps' and
// two escape tests', K-step blocks K steps' and one test's), matched in order to the schedule's
// regions, copy after copy; the code between them belongs to the phase it sits in (up to the last
// branch that skips the next phase, to the phase before); the loops around them are the queue's.
KernelCut cut_kernel(const sass::Function& f, VariantId v);

}  // namespace mp
