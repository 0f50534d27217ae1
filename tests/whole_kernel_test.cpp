// The whole-kernel model (model/kernel_parts.h, frame_tally.h, whole_kernel.h): its arithmetic on
// frames worked out by hand, and the cut of the captured SASS of every architecture into parts.
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/report.h"
#include "io/sass_loader.h"
#include "model/experiment_model.h"
#include "model/refill_rounds.h"
#include "model/variant_table.h"
#include "model/whole_kernel.h"
#include "pixel.h"
#include "sass_fixture_text.h"

namespace mp {
namespace {

std::vector<sass::Function> fixture(const std::string& arch) {
  return sass::parse_cuobjdump(sass_fixture_text(arch));
}

// fma4-x16's schedule: paired blocks of 16, replayed in pairs of 4, then single steps.
BlockSchedule x16() {
  return *block_schedule(VariantId::Fma4X16);
}

// A width x height frame of launch shape `shape`, at most max_iter steps, on `sm_count` SMs of
// `warps_per_sm` warps (0: not known, as on the CPU path).
FrameShape frame_shape(variants::Shape shape, int width, int height, unsigned max_iter,
                       int sm_count = 0, int warps_per_sm = 0) {
  FrameShape f;
  f.shape = shape;
  f.width = width;
  f.height = height;
  f.max_iter = max_iter;
  f.sm_count = sm_count;
  f.warps_per_sm = warps_per_sm;
  return f;
}

// A 16x2 image on the grid's launch shape: one tile, the rest of its 16x16 block empty.
FrameShape tile_shape(unsigned max_iter) {
  return frame_shape(variants::Shape::Grid, 16, 2, max_iter);
}

// One 16x2 tile of a 16x2 image, counts row by row.
FrameTally one_tile(const std::vector<unsigned>& counts, unsigned max_iter) {
  return tally_frame(x16(), tile_shape(max_iter), counts.data());
}

TEST(FrameTally, ScheduleOfX16IsPairsOf16ThenReplay) {
  const std::vector<OrbitRegion> r = orbit_regions(x16());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].kind, RegionKind::Pairs);
  EXPECT_EQ(r[0].block, 16);
  EXPECT_EQ(r[1].kind, RegionKind::Pairs);
  EXPECT_EQ(r[1].block, 4);
  EXPECT_EQ(r[2].kind, RegionKind::Single);
  // fma4-rows: blocks of 4 to 32 steps, 16 to 512, then 32; each with its replay.
  const std::vector<OrbitRegion> rows = orbit_regions(*block_schedule(VariantId::Fma4Rows));
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0].block, 4);
  EXPECT_EQ(rows[2].block, 16);
  EXPECT_EQ(rows[5].block, 32);
  EXPECT_EQ(rows[7].phase, 2);
  EXPECT_TRUE(block_schedule(VariantId::Fma4Refill)->refill);
  EXPECT_FALSE(block_schedule(VariantId::PerturbExtended));
  EXPECT_FALSE(block_schedule(VariantId::PerturbFloat));
}

// Every pixel escapes at its first step: each loop of the orbit begins one trip (the 16-step
// pair's first block fails its test, the 4-step replay's too, one single step), no second block.
TEST(FrameTally, EveryPixelEscapesInTheFirstBlock) {
  const FrameTally t = one_tile(std::vector<unsigned>(32, 1), 100);
  EXPECT_EQ(t.trips, (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(t.seconds, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(t.reached, (std::vector<double>{1}));
  EXPECT_EQ(t.warp_steps, 1);
  EXPECT_EQ(t.pixel_steps, 32);
  // The tile's block holds eight tiles: the launch runs them all, empty ones too.
  EXPECT_EQ(t.pixel_visits, 8);
  EXPECT_EQ(t.warps, 8);
  EXPECT_EQ(t.blocks, 1);
  EXPECT_EQ(t.block_tallies, 8);
}

// Every pixel runs to the limit of 100: three whole pairs of 16 (96 steps), no pair of 4 fits in
// the 4 left, four single steps (each past its escape test: a single step's "seconds").
TEST(FrameTally, EveryPixelReachesTheLimit) {
  const FrameTally t = one_tile(std::vector<unsigned>(32, 100), 100);
  EXPECT_EQ(t.trips, (std::vector<double>{3, 0, 4}));
  EXPECT_EQ(t.seconds, (std::vector<double>{3, 0, 4}));
  EXPECT_EQ(t.warp_steps, 100);
}

// Half the tile escapes at step 40: pair 2 of 16 escapes in its first block (steps 33..48), so
// it begins 2 trips and runs 1 second block; the replay from 32: one pair of 4, whose second block
// (37..40) escapes; then single steps 37..40, four, the last stopping at its escape test. The
// other half runs to the limit as above. The warp runs each loop as long as its slowest lane:
// the maxima.
TEST(FrameTally, MixedTileTakesEachLoopsSlowestLane) {
  std::vector<unsigned> counts(32, 100);
  std::fill(counts.begin(), counts.begin() + 16, 40u);
  const FrameTally t = one_tile(counts, 100);
  EXPECT_EQ(t.trips, (std::vector<double>{3, 1, 4}));
  EXPECT_EQ(t.seconds, (std::vector<double>{3, 1, 4}));
  EXPECT_EQ(t.warp_steps, 100);
  EXPECT_EQ(t.pixel_steps, 16 * 40 + 16 * 100);
}

// A cut made by hand, one pipe a piece, so that each total is one count times one piece.
KernelCut hand_cut() {
  KernelCut c;
  c.regions = orbit_regions(x16());
  c.copies = 1;
  auto piece = [&](KernelPart part, PieceCount count, int index, InstrMix mix) {
    KernelPiece p;
    p.part = part;
    p.count = count;
    p.index = index;
    p.mix = mix;
    c.pieces.push_back(p);
  };
  piece(KernelPart::StepLoop, PieceCount::RegionTrips, 0, {70, 0, 0, 0, 2});
  piece(KernelPart::StepLoop, PieceCount::RegionSeconds, 0, {66, 0, 0, 0, 1});
  piece(KernelPart::PerBlock, PieceCount::RegionTrips, 1, {18, 1, 0, 0, 1});
  piece(KernelPart::PerBlock, PieceCount::RegionSeconds, 1, {18, 2, 0, 0, 1});
  piece(KernelPart::PerBlock, PieceCount::RegionTrips, 2, {6, 2, 0, 0, 1});
  piece(KernelPart::PerBlock, PieceCount::PhaseReached, 0, {0, 5, 0, 0, 0});
  piece(KernelPart::PerPixel, PieceCount::Warps, 0, {10, 20, 2, 0, 8});
  piece(KernelPart::PerPixel, PieceCount::BlockTallies, 0, {0, 3, 0, 0, 1});
  piece(KernelPart::PerPixel, PieceCount::Blocks, 0, {0, 0, 0, 0, 5, 3});
  piece(KernelPart::PerPixel, PieceCount::Never, 0, {0, 0, 0, 0, 99});
  return c;
}

TEST(WholeKernel, EveryPixelEscapingInTheFirstBlockIsMostlyOutsideTheStepLoop) {
  const WholeKernel w =
      model_whole_kernel(hand_cut(), one_tile(std::vector<unsigned>(32, 1), 100), false, -1);
  ASSERT_TRUE(w.ok()) << w.unusable;
  // Step loop: 1 first half (72). Per block: 1 x 20 + 0 + 1 x 9 + 1 x 5 = 34. Per pixel: 8 warps
  // x 40, 8 tally trips x 4, 1 block x 8: 360.
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 72);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerBlock).mix.total(), 34);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerPixel).mix.total(), 8 * 40 + 8 * 4 + 8);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerPixel).mix.lsu, 3);
  EXPECT_DOUBLE_EQ(w.instructions(), 72 + 34 + 360);
  EXPECT_NEAR(w.outside_step_loop(), 1 - 72.0 / 466, 1e-12);
}

TEST(WholeKernel, EveryPixelAtTheLimitIsMostlyTheStepLoop) {
  const WholeKernel w =
      model_whole_kernel(hand_cut(), one_tile(std::vector<unsigned>(32, 100), 100), false, -1);
  // Step loop: 3 x 72 + 3 x 67 = 417. Per block: no pair of 4, 4 single steps x 9, phase 5: 41.
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 417);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.fma, 3 * 70 + 3 * 66);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerBlock).mix.total(), 41);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerPixel).mix.total(), 360);
}

TEST(WholeKernel, MixedTile) {
  std::vector<unsigned> counts(32, 100);
  std::fill(counts.begin(), counts.begin() + 16, 40u);
  const WholeKernel w = model_whole_kernel(hand_cut(), one_tile(counts, 100), false, -1);
  // Per block: pair of 4 1 x 20 + 1 x 21, 4 single steps x 9, phase 5: 82.
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 417);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerBlock).mix.total(), 82);
  // Each pipe's load is the sum over parts, over the measured cycles.
  const PipeRates rates = pipe_rates(9, 0);
  const std::vector<PipeLoad> loads = whole_kernel_loads(rates, 1, w, 1000, 1.0);
  const auto issue =
      std::find_if(loads.begin(), loads.end(), [](const PipeLoad& p) { return p.name == "issue"; });
  ASSERT_NE(issue, loads.end());
  EXPECT_DOUBLE_EQ(issue->busy_cycles, (417 + 82 + 360) / rates[Pipe::Issue]);
}

// The FMA pipe as a whole: no fmaheavy or fmalite figures, though the cut's pieces hold
// heavy-only instructions, and on a chip with the two halves a line says they are not modelled.
TEST(WholeKernel, TheFmaPipesHalvesAreNotModelled) {
  KernelCut c = hand_cut();
  c.arch = 90;
  c.pieces.front().heavy_only = 10;
  const WholeKernel w =
      model_whole_kernel(c, one_tile(std::vector<unsigned>(32, 100), 100), false, -1);
  for (const PipeLoad& p : whole_kernel_loads(pipe_rates(9, 0), 1, w, 1000, 1.0))
    EXPECT_TRUE(p.name != "fmaheavy" && p.name != "fmalite") << p.name;
  ASSERT_EQ(w.not_modelled.size(), 1u);
  EXPECT_NE(w.not_modelled.front().find("fmaheavy and fmalite"), std::string::npos);
  c.arch = 80;  // GA100: one FMA pipe, nothing left out
  EXPECT_TRUE(model_whole_kernel(c, one_tile(std::vector<unsigned>(32, 100), 100), false, -1)
                  .not_modelled.empty());
}

// A variant that stops periodic orbits runs fewer steps than its counts give: every loop from the
// first that looks for repeats on (here all three: the pair of 16 looks for them) is scaled by
// one factor to the warp steps that ran, and the overlay is told so.
TEST(WholeKernel, PeriodicOrbitsScaleTheLoopsThatLookForRepeatsToTheStepsRun) {
  const FrameTally t = one_tile(std::vector<unsigned>(32, 100), 100);
  // 100 warp steps counted (3 pairs of 16, 4 single steps), 52 ran: 52% of each loop's trips.
  // Step loop 0.52 x 417; per block 0.52 x 4 single steps x 9, and phase 0's 5 as counted.
  WholeKernel w = model_whole_kernel(hand_cut(), t, true, 52);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 0.52 * 417);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerBlock).mix.total(), 0.52 * 36 + 5);
  ASSERT_FALSE(w.unplaced.empty());
  EXPECT_NE(w.unplaced.front().find("52.0%"), std::string::npos) << w.unplaced.front();
  // 2 steps ran: fewer than the single steps' 4 alone, which the long loop's scaling could not
  // take away; each loop is at 2% of its trips.
  w = model_whole_kernel(hand_cut(), t, true, 2);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 0.02 * 417);
  EXPECT_DOUBLE_EQ(w.part(KernelPart::PerBlock).mix.total(), 0.02 * 36 + 5);
}

// fma4-cycles' schedule: pairs of 4 for an orbit's first 32 steps (no repeats looked for in
// blocks as short as the replay's), then pairs of 16 and of 32 that look for them. The first
// phase's loops run as counted; the later phases' are scaled.
TEST(WholeKernel, PeriodicOrbitsLeaveTheLoopsBeforeTheCheckAsCounted) {
  KernelCut c;
  c.regions = orbit_regions(*block_schedule(VariantId::Fma4Cycles));
  ASSERT_EQ(c.regions.size(), 8u);
  ASSERT_EQ(c.regions[2].block, 16);
  c.copies = 1;
  KernelPiece first, sixteen;
  first.part = sixteen.part = KernelPart::PerBlock;
  first.count = sixteen.count = PieceCount::RegionTrips;
  first.index = 0;
  first.mix = {10, 0, 0, 0, 0};
  sixteen.index = 2;
  sixteen.mix = {100, 0, 0, 0, 0};
  c.pieces = {first, sixteen};
  FrameTally t;
  t.trips = {1, 0, 2, 0, 0, 0, 0, 0};
  t.seconds.assign(8, 0);
  t.reached = {1, 1, 0};
  t.warp_steps = 8 + 2 * 32;
  // 40 ran: the pair of 4's 8, and 32 of the pairs of 16's 64: half their trips.
  const WholeKernel w = model_whole_kernel(c, t, true, 40);
  ASSERT_TRUE(w.ok()) << w.unusable;
  EXPECT_DOUBLE_EQ(w.instructions(), 10 + 0.5 * 2 * 100);
}

TEST(WholeKernel, AnotherShapesCountsAreRefused) {
  const FrameShape rows = frame_shape(variants::Shape::Rows, 32, 2, 10);
  const std::vector<unsigned> counts(64, 10);
  const WholeKernel w =
      model_whole_kernel(hand_cut(), tally_frame(x16(), rows, counts.data()), false, -1);
  EXPECT_FALSE(w.ok());
}

// Shape::Rows: a warp is 32 pixels of a row and then of the next, two copies of the orbit's code.
TEST(FrameTally, RowsWarpsRunTwoRows) {
  const FrameShape rows = frame_shape(variants::Shape::Rows, 32, 2, 8);
  std::vector<unsigned> counts(64, 8);
  std::fill(counts.begin(), counts.begin() + 32, 1u);  // the first row escapes at once
  const BlockSchedule s = *block_schedule(VariantId::Fma4Rows);
  const FrameTally t = tally_frame(s, rows, counts.data());
  EXPECT_EQ(t.copies, 2);
  // One block of 256 pixels: eight warps, one with pixels. Copy 0 (row 0): the pair of 4 begins
  // once, escapes in its first block; one single step. Copy 1 (row 1, limit 8): one whole pair.
  EXPECT_EQ(t.warps, 8);
  EXPECT_EQ(t.blocks, 1);
  EXPECT_EQ(t.trips[0], 1);
  EXPECT_EQ(t.seconds[0], 0);
  EXPECT_EQ(t.trips[1], 1);
  EXPECT_EQ(t.trips[8], 1);
  EXPECT_EQ(t.seconds[8], 1);
  EXPECT_EQ(t.trips[9], 0);
  // Phase 1 (blocks of 16) is reached by neither row: both are done by then.
  EXPECT_EQ(t.reached[0], 1);
  EXPECT_EQ(t.reached[1], 0);
  EXPECT_EQ(t.reached[3], 1);
  EXPECT_EQ(t.warp_steps, 1 + 8);
}

// The queue's takes: units of a bucket's tiles (cheap buckets several to a unit), then the tail.
TEST(FrameTally, QueueTakesUnitsThenTheTail) {
  std::vector<unsigned> costs(10, 1);  // bucket 0: units of 32 tiles
  costs.push_back(1000);               // bucket 9: one tile a unit
  costs.push_back(1000);
  EXPECT_EQ(queue_takes(costs, 0), 2 + 1);
  // The 4 cheapest places are the tail, one at a time; 6 of bucket 0 are left in one unit.
  EXPECT_EQ(queue_takes(costs, 4), 2 + 1 + 4);
}

// The queue's trips that change segment: with tiles in order a warp goes from the main queue to
// the tail and out (two); ordered by cost, at most four (the costly queue, the main one, the
// costly rest, the tail).
TEST(FrameTally, QueueWarpsChangeSegmentTwiceWithTilesInOrder) {
  FrameShape shape = frame_shape(variants::Shape::Queue, 32, 32, 10, 1, 64);
  const std::vector<unsigned> counts(32 * 32, 10);
  FrameTally t = tally_frame(*block_schedule(VariantId::Fma4), shape, counts.data());
  // 32 tiles of 16x2: 32 warps of the 64 an SM holds; one take a tile.
  EXPECT_EQ(t.warps, 32);
  EXPECT_EQ(t.queue_trips, 32);
  EXPECT_EQ(t.segment_changes, 2 * 32);
  shape.by_cost = true;
  t = tally_frame(*block_schedule(VariantId::Fma4), shape, counts.data());
  EXPECT_EQ(t.segment_changes, 4 * 32);
}

// The window keeps its pixels, not their counts: the smooth value gives the count back.
TEST(WholeKernel, CountsComeBackFromTheSmoothValues) {
  const unsigned max_iter = 500;
  std::vector<float> pixels;
  std::vector<unsigned> iters;
  for (int i = 0; i < 4000; ++i) {
    const float cx = -2.2f + 3.0f * (i % 80) / 80, cy = -1.3f + 2.6f * (i / 80) / 50;
    const PixelResult r = iterate<variants::Fma4>(cx, cy, max_iter);
    pixels.push_back(r.smooth);
    pixels.push_back(r.aux);
    iters.push_back(r.iters);
  }
  const std::vector<unsigned> back = counts_from_pixels(pixels.data(), iters.size(), max_iter);
  int off = 0;
  for (std::size_t i = 0; i < iters.size(); ++i) {
    EXPECT_LE(std::max(back[i], iters[i]) - std::min(back[i], iters[i]), 1u) << i;
    off += back[i] != iters[i];
  }
  EXPECT_LE(off, 4);  // of 4000: the overlap of two counts' ranges is thin
}

// The captured SASS of every architecture, each kernel build: the cut finds the orbit's loops in
// the schedule's order (two copies for a pair of rows), covers every instruction once, and its
// step loop is the one the model counted before (find_step_loop).
TEST(KernelParts, CutsTheCapturedSassOfEveryArchitecture) {
  for (int arch : {75, 80, 86, 89, 90}) {
    const auto fns = fixture("sm_" + std::to_string(arch));
    ASSERT_FALSE(fns.empty()) << arch;
    for (const VariantInfo& v : all_variants())
      for (auto b : {sass::KernelBuild::Plain, sass::KernelBuild::Recording}) {
        const sass::Function* f =
            sass::find_render_kernel(fns, sass::mangled_variant(v.type_name), b);
        // perturb-x and perturb-f are not modelled (KernelParts.PerturbXAndFSayWhyNot).
        if (!f || (v.perturbation && v.perturbation != DeltaFormat::Double)) continue;
        const KernelCut c = cut_kernel(*f, v.id);
        const std::string what = "sm_" + std::to_string(arch) + " " + std::string(v.name);
        // On sm_75 ptxas lays lane refill's trip out with the refill in one loop (variants.h):
        // no loop of two blocks alone to cut, and the cut says so.
        if (arch == 75 && v.shape == variants::Shape::Refill) {
          EXPECT_NE(c.unusable.find("loops of steps"), std::string::npos) << c.unusable;
          continue;
        }
        ASSERT_TRUE(c.unusable.empty()) << what << ": " << c.unusable;
        EXPECT_EQ(c.copies, v.shape == variants::Shape::Rows ? 2 : 1) << what;
        std::vector<KernelPiece> pieces = c.pieces;
        std::sort(pieces.begin(), pieces.end(),
                  [](const KernelPiece& a, const KernelPiece& p) { return a.first < p.first; });
        std::size_t next = 0;
        for (const KernelPiece& p : pieces) {
          EXPECT_EQ(p.first, next) << what;
          next = p.last + 1;
        }
        EXPECT_EQ(next, f->code.size()) << what;
        InstrMix main;
        const std::optional<sass::Loop> loop = sass::find_step_loop(*f);
        ASSERT_TRUE(loop) << what;
        for (const KernelPiece& p : c.pieces)
          if (p.part == KernelPart::StepLoop && p.first >= loop->first && p.last <= loop->last)
            main = main + p.mix;
        EXPECT_EQ(main, sass::mix_of(*f, *loop)) << what;
        // Lane refill's round: each of its paths found (the take's atomic among the new tile's).
        if (v.shape == variants::Shape::Refill)
          for (int path = 0; path < kRefillPathCount; ++path) {
            const bool found =
                std::any_of(c.pieces.begin(), c.pieces.end(), [&](const KernelPiece& p) {
                  return p.count == PieceCount::RefillPaths && p.index == path;
                });
            EXPECT_TRUE(found) << what << ": refill path " << path;
          }
      }
  }
}

TEST(KernelParts, PerturbXAndFSayWhyNot) {
  const auto fns = fixture("sm_90");
  for (auto [type, id] : {std::pair{"PerturbExtended", VariantId::PerturbExtended},
                          std::pair{"PerturbFloat", VariantId::PerturbFloat}}) {
    const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant(type));
    ASSERT_NE(f, nullptr) << type;
    EXPECT_NE(cut_kernel(*f, id).unusable.find("not modelled"), std::string::npos) << type;
  }
}

// perturb on sm_90, one 16x2 tile (1 SM holding 1 warp), its warp in lockstep
// (perturb_lockstep.cuh), read off the listing by hand:
// - the steps' loop 0x1680..0x17f0, 24 a step, the vote and the branch back at its end: a warp
//   leaves it together, so every step runs it whole;
// - a round: the limit's test and the steps' set-up 0x1630..0x1670 (5), the code after the steps
//   0x1800..0x1ad0 (46), less the rebase 0x1a10..0x1a80 (8), which runs only in the rounds with
//   one (the finished lanes' reset is predicated: no path of its own on sm_90);
// - the set-up as an ordinary pixel runs it: the offsets' additions skip their 16 where the
//   reference is the view's centre (0xae0..0xbe0 and 0xda0..0xea0 for the one at 0xbf0 and 0xeb0).
// On sm_86 ptxas branches to the reset: 0x1950..0x19b0 (7, with the branch over the rebase),
// and the rebase is 0x19d0..0x1a10 (5).
TEST(KernelParts, PerturbCountsItsStepsAndRounds) {
  FrameShape shape = frame_shape(variants::Shape::Pixel, 16, 2, 100, 1, 1);
  const BlockSchedule s = *block_schedule(VariantId::PerturbDouble);
  auto model = [&](const KernelCut& cut, const std::vector<unsigned>& counts, int zero_offsets,
                   double rounds, double done, double rebases) {
    shape.zero_offsets = zero_offsets;
    shape.rounds = rounds;
    shape.done_rounds = done;
    shape.rebase_rounds = rebases;
    return model_whole_kernel(cut, tally_frame(s, shape, counts.data()), false, -1);
  };
  auto cut_of = [](const char* arch) {
    const auto fns = fixture(arch);
    const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant("PerturbDouble"));
    EXPECT_NE(f, nullptr) << arch;
    return f ? cut_kernel(*f, VariantId::PerturbDouble) : KernelCut{};
  };
  const KernelCut sm90 = cut_of("sm_90");
  ASSERT_TRUE(sm90.unusable.empty()) << sm90.unusable;
  // Every pixel escapes at step 5: 5 steps, one round, in which every lane finished.
  const std::vector<unsigned> five(32, 5);
  const WholeKernel one = model(sm90, five, 3, 1, 1, 0);
  ASSERT_TRUE(one.ok()) << one.unusable;
  EXPECT_DOUBLE_EQ(one.part(KernelPart::StepLoop).mix.total(), 5 * 24);
  EXPECT_DOUBLE_EQ(one.part(KernelPart::PerBlock).mix.total(), 5 + 46 - 8);
  // Two more rounds, both with a rebase: a round's code and the rebase's twice more; the finished
  // lanes' rounds change nothing on sm_90.
  const WholeKernel three = model(sm90, five, 3, 3, 3, 2);
  EXPECT_DOUBLE_EQ(three.part(KernelPart::PerBlock).mix.total(), 3 * (5 + 46 - 8) + 2 * 8);
  EXPECT_DOUBLE_EQ(three.instructions() - one.instructions(), 2 * (5 + 46 - 8) + 2 * 8);
  EXPECT_DOUBLE_EQ(model(sm90, five, 3, 3, 1, 2).instructions(), three.instructions());
  // The reference elsewhere (a nucleus in view): both offsets' additions run; one zero: one.
  EXPECT_DOUBLE_EQ(model(sm90, five, 0, 1, 1, 0).instructions() - one.instructions(), 2 * 16);
  EXPECT_DOUBLE_EQ(model(sm90, five, 2, 1, 1, 0).instructions() - one.instructions(), 16);
  // Without counts of its rounds (a frame that read the tables) the model says so.
  EXPECT_FALSE(model(sm90, five, 3, -1, -1, -1).ok());
  // sm_86: the reset's path in the rounds with a finished lane, the rebase's in those with one.
  const KernelCut sm86 = cut_of("sm_86");
  ASSERT_TRUE(sm86.unusable.empty()) << sm86.unusable;
  const double base = model(sm86, five, 3, 4, 0, 0).instructions();
  EXPECT_DOUBLE_EQ(model(sm86, five, 3, 4, 3, 0).instructions() - base, 3 * 7);
  EXPECT_DOUBLE_EQ(model(sm86, five, 3, 4, 0, 2).instructions() - base, 2 * 5);
}

// Lane refill's warps simulated (refill_rounds.h), counted by hand: a 16x32 frame (16 tiles),
// one block of 8 warps, limit 100, trips of two 8-step blocks. Tile 0's lanes 0-7 escape at step
// 5, its others at 40; every other pixel at 5. Warp k starts on tile k, then takes 8 + k and
// 16 + k (past the range) from counter k.
//   Warps 1-7: a trip (all wait), a round (replay 5; take: tile 8 + k, new tile's pixels), a trip,
//   a round (replay 5; take: none left), a last pass: 2 trips, 10 replayed, 3 passes, 2 rounds.
//   Warp 0: pass 1, one trip (lanes 0-7 wait; the rest have 2 trips left), round 1 (replay 5,
//   take tile 8, lanes 0-7 on its pixels 0-7); pass 2, one trip (lanes 0-7 wait), round 2 (replay
//   5, pixels 8-15 of tile 8, no take); pass 3, one trip (all 32 wait), round 3 (replay 8: 40 is
//   32 + 8, lanes 8-31 kept at step 32; take: none left, lanes 0-15 on tile 8's 16-31, 16-31 on
//   nothing); pass 4 (quorum 32), one trip, round 4 (replay 5; pixels of no tile); pass 5 ends.
//   4 trips, 23 replayed, 5 passes, 4 rounds; current tile's pixels in rounds 2-4 (of the range
//   in 2 and 3), the new tile's in rounds 1, 3, 4 (of the range in 1).
TEST(RefillRounds, SimulatesAFrameCountedByHand) {
  std::vector<unsigned> counts(16 * 32, 5);
  for (int lane = 8; lane < 32; ++lane) counts[(lane / 16) * 16 + lane % 16] = 40;
  const RefillRounds r = simulate_refill(16, 32, 100, 8, 8, counts.data());
  EXPECT_EQ(r.warps, 8);
  EXPECT_EQ(r.trips, 4 + 7 * 2);
  EXPECT_EQ(r.replay_steps, 23 + 7 * 10);
  EXPECT_EQ(r.warp_steps, (4 + 7 * 2) * 16 + 23 + 7 * 10);
  EXPECT_EQ(r.path(RefillPath::Pass), 5 + 7 * 3);
  EXPECT_EQ(r.path(RefillPath::Round), 4 + 7 * 2);
  EXPECT_EQ(r.path(RefillPath::Finish), 4 + 7 * 2);
  EXPECT_EQ(r.path(RefillPath::NewTile), 2 + 7 * 2);
  EXPECT_EQ(r.path(RefillPath::CurrentEntered), 3);
  EXPECT_EQ(r.path(RefillPath::CurrentStarted), 2);
  EXPECT_EQ(r.path(RefillPath::FreshEntered), 3 + 7 * 2);
  EXPECT_EQ(r.path(RefillPath::FreshStarted), 1 + 7);
}

// Pixels at the limit run its whole trips (100 / 16: 6) and replay the rest (4 steps); a limit
// below a trip blocks every lane at once: no trips, the whole orbit replayed.
TEST(RefillRounds, LimitsBlockTheLanes) {
  const std::vector<unsigned> at_limit(16 * 16, 100);
  const RefillRounds r = simulate_refill(16, 16, 100, 8, 8, at_limit.data());
  EXPECT_EQ(r.trips, 8 * 6);
  EXPECT_EQ(r.replay_steps, 8 * 4);
  EXPECT_EQ(r.path(RefillPath::Round), 8);
  const std::vector<unsigned> short_limit(16 * 16, 10);
  const RefillRounds s = simulate_refill(16, 16, 10, 8, 8, short_limit.data());
  EXPECT_EQ(s.trips, 0);
  EXPECT_EQ(s.replay_steps, 8 * 10);
}

// The frame tally takes lane refill's loops from the simulation where the old rule had none
// without the kernel's tallies: the trips, the replays' single steps, the rounds as the code
// between the loops runs, and the launch's warps (sm_count x warps_per_sm, at most the tiles').
TEST(FrameTally, RefillSimulatesItsWarps) {
  const BlockSchedule s = *block_schedule(VariantId::Fma4Refill);
  ASSERT_EQ(orbit_regions(s).size(), 2u);
  FrameShape f = frame_shape(variants::Shape::Refill, 16, 32, 100);
  std::vector<unsigned> counts(16 * 32, 5);
  for (int lane = 8; lane < 32; ++lane) counts[(lane / 16) * 16 + lane % 16] = 40;
  EXPECT_FALSE(tally_frame(s, f, counts.data()).missing.empty());  // no warps known
  f.sm_count = 1;
  f.warps_per_sm = 64;  // more than the frame's two blocks
  const FrameTally t = tally_frame(s, f, counts.data());
  ASSERT_TRUE(t.missing.empty()) << t.missing;
  EXPECT_EQ(t.warps, 16);
  f.warps_launched = 8;
  const FrameTally one = tally_frame(s, f, counts.data());
  EXPECT_EQ(one.trips, (std::vector<double>{18, 93}));
  EXPECT_EQ(one.reached, (std::vector<double>{18}));
  EXPECT_EQ(one.pixel_visits, 18);
  EXPECT_EQ(one.blocks, 1);
  EXPECT_EQ(one.warp_steps, 18 * 16 + 93);
  ASSERT_EQ(one.refill_paths.size(), static_cast<std::size_t>(kRefillPathCount));
  EXPECT_EQ(one.refill_paths[static_cast<int>(RefillPath::NewTile)], 16);
  EXPECT_EQ(one.pixel_steps, 32 * 5 * 15 + 8 * 5 + 24 * 40);
  // A frame in several launches: their tile ranges are not kept, so no launch can be simulated.
  f.launches = 3;
  EXPECT_NE(tally_frame(s, f, counts.data()).missing.find("3 launches"), std::string::npos);
}

// Counts that do not give the warp steps the frame ran are named, with the difference.
TEST(WholeKernel, CountsOtherThanTheFramesAreNamed) {
  const FrameTally t = one_tile(std::vector<unsigned>(32, 100), 100);
  EXPECT_EQ(model_whole_kernel(hand_cut(), t, false, 100).unplaced.size(), 1u);
  const WholeKernel w = model_whole_kernel(hand_cut(), t, false, 80);
  ASSERT_EQ(w.unplaced.size(), 2u);
  EXPECT_NE(w.unplaced.front().find("+25.00%"), std::string::npos) << w.unplaced.front();
}

// bench: the whole-kernel model beside the counters, in the Markdown table and the JSON.
TEST(WholeKernelReport, BenchComparesTheModelWithTheCounters) {
  BenchReport rep;
  rep.device = {"Test GPU", 9, 0, 132, "issue 4/clk", "SASS"};
  MeasuredRow r;
  r.view_name = "A";
  r.variant = "fma4-x16";
  r.measured = {0.5, 1000, 2e7, 1e6, 900};
  r.whole = model_whole_kernel(hand_cut(), one_tile(std::vector<unsigned>(32, 1), 100), false, -1);
  r.whole_busy = {{"issue", 50.0}, {"FMA", 20.0}};
  CounterFigures c;
  c.warp_instructions = 500;
  c.pipes = {{"issue", 53.5}, {"FMA", 19.0}};
  r.counters = c;
  rep.rows.push_back(r);
  MeasuredRow none = r;
  none.variant = "fma4-refill";
  none.whole = WholeKernel{};
  none.whole->unusable = "no tallies";
  rep.rows.push_back(none);
  const std::string md = format_bench(rep, OutputFormat::Markdown);
  // 466 modelled against 500 counted: -6.8%; issue 50.0 against 53.5: -3.5 points.
  EXPECT_NE(md.find("466 / 500 | -6.8% |"), std::string::npos) << md;
  EXPECT_NE(md.find("50.0 / 53.5 (-3.5)"), std::string::npos) << md;
  EXPECT_NE(md.find("n/a: no tallies"), std::string::npos) << md;
  const nlohmann::json j = nlohmann::json::parse(format_bench(rep, OutputFormat::Json));
  const nlohmann::json& w = j["rows"][0]["whole_kernel"];
  EXPECT_DOUBLE_EQ(w["instructions"].get<double>(), 466);
  EXPECT_DOUBLE_EQ(w["parts"]["step loop"].get<double>(), 72);
  EXPECT_DOUBLE_EQ(w["busy"]["issue"].get<double>(), 50);
  EXPECT_TRUE(w["not_modelled"].is_array());
  EXPECT_EQ(j["rows"][1]["whole_kernel"]["unusable"], "no tallies");
}

// kernel-overhead's shares: of the whole kernel's instructions those outside the step loop, and of
// its bound the part the step loop's own bound leaves; measured against counted instructions and
// SM cycles.
TEST(KernelOverhead, SharesOutsideTheStepLoop) {
  const WholeKernel w =
      model_whole_kernel(hand_cut(), one_tile(std::vector<unsigned>(32, 1), 100), false, -1);
  const PipeRates rates = pipe_rates(9, 0);  // issue-bound: 4 a clock, FMA 4 a clock
  const OverheadShares p = predicted_overhead(rates, w);
  EXPECT_NEAR(p.instructions, 1 - 72.0 / 466, 1e-12);
  // Issue limits both: 466 / 4 against 72 / 4 cycles.
  EXPECT_NEAR(p.cycles, 1 - 72.0 / 466, 1e-12);
  EXPECT_NEAR(measured_instruction_overhead(w, 720), 0.9, 1e-12);
  EXPECT_NEAR(measured_cycle_overhead(rates, 1, w, 180), 1 - 18.0 / 180, 1e-12);
}

// The queue's loop on sm_90 (fma4): a take runs the unit's decode (0x400..0x5d0), the tile loop's
// exit (0x910, 0x920), lane 0's take from the global counter (0xad0..0xc50) and the next unit's
// start (0xd40..0xdb0), 65 instructions as read off the listing; the other segments' code and
// the tail's shared-memory take are the segment changes'.
TEST(KernelParts, TheQueuesTakeIsTheFallThroughPath) {
  const auto fns = fixture("sm_90");
  const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant("Fma4"));
  ASSERT_NE(f, nullptr);
  const KernelCut c = cut_kernel(*f, VariantId::Fma4);
  ASSERT_TRUE(c.unusable.empty()) << c.unusable;
  double take = 0, changes = 0;
  for (const KernelPiece& p : c.pieces) {
    if (p.count == PieceCount::QueueTrips) take += p.mix.total();
    if (p.count == PieceCount::SegmentChanges) changes += p.mix.total();
    if (p.count == PieceCount::QueueTrips || p.count == PieceCount::SegmentChanges)
      EXPECT_EQ(p.part, KernelPart::PerLaunch);
  }
  EXPECT_EQ(take, 30 + 2 + 25 + 8);
  EXPECT_EQ(changes, 156 - 65 - 51);  // the queue's loop less the take and the tile loop
}

// How each warp's lanes left each loop: by the escape test or by the count (exit_bit), or-ed.
TEST(FrameTally, ExitsOfEachLoopByEscapeOrByCount) {
  // Every lane escapes at its first step: out of the pair of 16, the replay and the single
  // steps by their escape tests.
  const std::uint32_t escaped = exit_bit(0, true) | exit_bit(1, true) | exit_bit(2, true);
  // Every lane at the limit of 100: three pairs of 16, no pair of 4, four single steps, each
  // left by its count.
  const std::uint32_t counted = exit_bit(0, false) | exit_bit(1, false) | exit_bit(2, false);
  EXPECT_EQ(one_tile(std::vector<unsigned>(32, 1), 100).exit_visits,
            (std::map<std::pair<int, std::uint32_t>, double>{{{0, escaped}, 1}}));
  EXPECT_EQ(one_tile(std::vector<unsigned>(32, 100), 100).exit_visits,
            (std::map<std::pair<int, std::uint32_t>, double>{{{0, counted}, 1}}));
  std::vector<unsigned> counts(32, 100);
  std::fill(counts.begin(), counts.begin() + 16, 40u);
  EXPECT_EQ(one_tile(counts, 100).exit_visits,
            (std::map<std::pair<int, std::uint32_t>, double>{{{0, escaped | counted}, 1}}));
}

// A one-step kernel written by hand: a pixel outside the image skips to the store; the loop's
// escape test leaves to the finish (two MUFU and a FADD), its count to the inside value (a MOV
// and a BRA). Each path runs only in the visits whose lanes left that way; the store in all.
TEST(KernelParts, CodeOnlyALoopsEscapeOrCountReachesRunsInThoseVisits) {
  const std::string text = R"(
	code for sm_90
		Function : _ZN2mp13render_kernelINS_8variants4Fma5EEEvNS_12RenderLaunchE
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0020*/               @P0 BRA 0x130 ;
        /*0030*/                   FMUL R5, R2, R2 ;
        /*0040*/                   FFMA R5, R3, R3, -R5 ;
        /*0050*/                   FADD R6, R2, R2 ;
        /*0060*/                   FADD R5, R5, R7 ;
        /*0070*/                   FFMA R3, R6, R3, R8 ;
        /*0080*/                   FMUL R9, R3, R3 ;
        /*0090*/                   FFMA R9, R5, R5, R9 ;
        /*00a0*/                   FSETP.GTU.AND P1, PT, R9, 4, PT ;
        /*00b0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00c0*/                   ISETP.LT.U32.AND P2, PT, R4, R10, PT ;
        /*00d0*/               @P1 BRA 0x110 ;
        /*00e0*/               @P2 BRA 0x30 ;
        /*00f0*/                   MOV R11, -1 ;
        /*0100*/                   BRA 0x130 ;
        /*0110*/                   MUFU.LG2 R11, R9 ;
        /*0120*/                   FADD R11, R11, 2 ;
        /*0130*/                   STG.E [R12.64], R11 ;
        /*0140*/                   EXIT ;
        /*0150*/                   BRA 0x150 ;
)";
  const auto fns = sass::parse_cuobjdump(text);
  ASSERT_EQ(fns.size(), 1u);
  const KernelCut c = cut_kernel(fns[0], VariantId::Fma5);
  ASSERT_TRUE(c.unusable.empty()) << c.unusable;
  double escape_path = 0, count_path = 0, every_warp = 0;
  for (const KernelPiece& p : c.pieces) {
    if (p.count == PieceCount::ExitPaths && p.exits == exit_bit(0, true))
      escape_path += p.mix.total();
    if (p.count == PieceCount::ExitPaths && p.exits == exit_bit(0, false))
      count_path += p.mix.total();
    if (p.count == PieceCount::Warps) every_warp += p.mix.total();
  }
  EXPECT_EQ(escape_path, 2);     // MUFU.LG2, FADD
  EXPECT_EQ(count_path, 2);      // MOV, BRA
  EXPECT_EQ(every_warp, 3 + 2);  // the start, the store and EXIT
  // One 16x2 tile (of a block of eight) whose lanes all escape at step 3: three trips, the escape
  // path once, the count path never; the block's eight warps each run the start and the store.
  const FrameShape shape = tile_shape(100);
  const std::vector<unsigned> counts(32, 3);
  const WholeKernel w = model_whole_kernel(
      c, tally_frame(*block_schedule(VariantId::Fma5), shape, counts.data()), false, -1);
  ASSERT_TRUE(w.ok()) << w.unusable;
  EXPECT_DOUBLE_EQ(w.instructions(), 3 * 12 + 2 + 8 * 5);
  // One back edge on two predicates (on while inside and below the count): falling out of it is
  // either way, and so is the code only it reaches.
  std::string both = text;
  both.replace(both.find("@P1 BRA 0x110"), 13, "NOP");
  both.replace(both.find("@P2 BRA 0x30"), 12, "@!P1 BRA P2, 0x30");
  const KernelCut b = cut_kernel(sass::parse_cuobjdump(both).at(0), VariantId::Fma5);
  ASSERT_TRUE(b.unusable.empty()) << b.unusable;
  const auto after = std::find_if(b.pieces.begin(), b.pieces.end(),
                                  [](const KernelPiece& p) { return p.first == 15; });
  ASSERT_NE(after, b.pieces.end());
  EXPECT_EQ(after->count, PieceCount::ExitPaths);
  EXPECT_EQ(after->exits, exit_bit(0, true) | exit_bit(0, false));
}

// A tile's SIMT efficiency (a division the recording kernel skips where the frame's pointer to
// them is null) counts only in frames that keep them, and the division's slow path, a subroutine
// after the kernel's EXIT that only a CALL reaches, never: counted in every warp, as the cut did
// before, they put the queue's variants 5 to 12% over the counters at sparse views.
TEST(KernelParts, EfficienciesOnlyWhereKeptAndTheDivisionsSlowPathNever) {
  const std::string text = R"(
	code for sm_90
		Function : _ZN2mp13render_kernelINS_8variants4Fma5EEEvNS_12RenderLaunchE
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   ISETP.GE.AND P0, PT, R0, 0x10, PT ;
        /*0020*/               @P0 BRA 0x130 ;
        /*0030*/                   FMUL R5, R2, R2 ;
        /*0040*/                   FFMA R5, R3, R3, -R5 ;
        /*0050*/                   FADD R6, R2, R2 ;
        /*0060*/                   FADD R5, R5, R7 ;
        /*0070*/                   FFMA R3, R6, R3, R8 ;
        /*0080*/                   FMUL R9, R3, R3 ;
        /*0090*/                   FFMA R9, R5, R5, R9 ;
        /*00a0*/                   FSETP.GTU.AND P1, PT, R9, 4, PT ;
        /*00b0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00c0*/                   ISETP.LT.U32.AND P2, PT, R4, R10, PT ;
        /*00d0*/               @P1 BRA 0x110 ;
        /*00e0*/               @P2 BRA 0x30 ;
        /*00f0*/                   MOV R11, -1 ;
        /*0100*/                   BRA 0x130 ;
        /*0110*/                   MUFU.LG2 R11, R9 ;
        /*0120*/                   FADD R11, R11, 2 ;
        /*0130*/                   STG.E [R12.64], R11 ;
        /*0140*/                   ISETP.NE.U32.AND P0, PT, RZ, UR20, PT ;
        /*0150*/                   ISETP.NE.AND.EX P0, PT, RZ, UR21, PT, P0 ;
        /*0160*/              @!P0 BRA 0x1c0 ;
        /*0170*/                   MUFU.RCP R14, R13 ;
        /*0180*/                   FCHK P1, R12, R13 ;
        /*0190*/                   FFMA R15, R12, R14, RZ ;
        /*01a0*/               @P1 CALL.REL.NOINC 0x1d0 ;
        /*01b0*/                   STG.E [R16.64], R15 ;
        /*01c0*/                   EXIT ;
        /*01d0*/                   FFMA R15, R12, R14, RZ ;
        /*01e0*/                   MOV R15, RZ ;
        /*01f0*/                   RET.REL.NODEC R20 0x0 ;
        /*0200*/                   BRA 0x200 ;
)";
  const KernelCut c = cut_kernel(sass::parse_cuobjdump(text).at(0), VariantId::Fma5);
  ASSERT_TRUE(c.unusable.empty()) << c.unusable;
  double efficiency = 0, never = 0;
  for (const KernelPiece& p : c.pieces) {
    if (p.count == PieceCount::Efficiencies) efficiency += p.mix.total();
    if (p.count == PieceCount::Never) never += p.mix.total();
  }
  EXPECT_EQ(efficiency, 5);  // MUFU.RCP to the STG of the efficiency
  EXPECT_EQ(never, 3 + 1);   // the subroutine and the trap
  // One 16x2 tile whose lanes all escape at step 3 (its block's eight warps, seven of them empty):
  // three trips of 12, the escape path once, and each warp's start (3), the store, the pointer's
  // test and its branch (4) and EXIT: 36 + 2 + 8 x 8. The old cut counted the efficiency and the
  // subroutine in every warp too: 8 x 8 more.
  FrameShape shape = tile_shape(100);
  const std::vector<unsigned> counts(32, 3);
  const BlockSchedule s = *block_schedule(VariantId::Fma5);
  const WholeKernel plain = model_whole_kernel(c, tally_frame(s, shape, counts.data()), false, -1);
  ASSERT_TRUE(plain.ok()) << plain.unusable;
  EXPECT_DOUBLE_EQ(plain.instructions(), 3 * 12 + 2 + 8 * 8);
  // The divergence view keeps them: the division in each warp's visit of its tile.
  shape.efficiencies = true;
  const WholeKernel kept = model_whole_kernel(c, tally_frame(s, shape, counts.data()), false, -1);
  EXPECT_DOUBLE_EQ(kept.instructions(), 3 * 12 + 2 + 8 * 8 + 8 * 5);
}

// A device run's carried listing (cuobjdump's text, gzip-ed) is read as the build's SASS, so the
// model can be recomputed offline from the kernels that ran; a file that is not one says so.
TEST(SassListingFile, ReadsAGzippedListingAndRefusesOtherFiles) {
  const std::filesystem::path gz =
      std::filesystem::temp_directory_path() / "mandelpipe_listing_test.sass.gz";
  const std::string text = sass_fixture_text("sm_90");
  gzFile out = gzopen(gz.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(gzwrite(out, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(out);
  const LoadedSass read = sass_listing_file(gz.string(), "sm_90");
  EXPECT_TRUE(read.ok()) << read.source;
  EXPECT_NE(read.loop(VariantId::Fma4, sass::KernelBuild::Recording), nullptr);
  // A listing of every architecture (cuobjdump without -arch): the asked one's kernels, not the
  // first section's.
  gzFile both = gzopen(gz.c_str(), "wb");
  ASSERT_NE(both, nullptr);
  for (const char* arch : {"sm_75", "sm_90"}) {
    const std::string t = sass_fixture_text(arch);
    ASSERT_EQ(gzwrite(both, t.data(), static_cast<unsigned>(t.size())), static_cast<int>(t.size()));
  }
  gzclose(both);
  for (const char* arch : {"sm_75", "sm_90"}) {
    const LoadedSass each = sass_listing_file(gz.string(), arch);
    const LoopListing* l = each.loop(VariantId::Fma4, sass::KernelBuild::Recording);
    ASSERT_NE(l, nullptr) << arch;
    EXPECT_EQ(l->arch, sass::arch_number(arch)) << arch;
  }
  std::filesystem::remove(gz);
  EXPECT_FALSE(sass_listing_file(gz.string(), "sm_90").ok());
  EXPECT_NE(sass_listing_file(gz.string(), "sm_90").source.find("could not read"),
            std::string::npos);
}

// fma4-rows's captured listing: the first row's escape stub after its phase-0 single steps (a MOV
// and a MOV and a BRA to the finish, 0x840-0x860) runs where a lane escaped there; the code after
// it (0x870-0x970: is the phase over, the pairs of 16's set-up) where a lane ran phase 0 out;
// the finish's logarithms (0x2d80-0x2dc0) where a lane escaped anywhere. Phase 2's set-up
// (0x1700-0x17d0) is also reached from phase 1's first loop by the branches that skip the
// loops between, which few lanes take: it stays counted as the code between two phases is (here
// with phase 1's exit tests, up to the branch that skips phase 2).
TEST(KernelParts, RowsPathsOutOfTheLoops) {
  const auto fns = fixture("sm_90");
  const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant("Fma4Rows"));
  ASSERT_NE(f, nullptr);
  const KernelCut c = cut_kernel(*f, VariantId::Fma4Rows);
  ASSERT_TRUE(c.unusable.empty()) << c.unusable;
  auto piece_at = [&](unsigned address) -> const KernelPiece* {
    for (const KernelPiece& p : c.pieces)
      if (f->code[p.first].address <= address && address <= f->code[p.last].address) return &p;
    return nullptr;
  };
  const KernelPiece* stub = piece_at(0x840);
  const KernelPiece* next = piece_at(0x900);
  const KernelPiece* finish = piece_at(0x2d90);
  const KernelPiece* phase2 = piece_at(0x1700);
  ASSERT_TRUE(stub && next && finish && phase2);
  EXPECT_EQ(stub->count, PieceCount::ExitPaths);
  EXPECT_EQ(stub->exits, exit_bit(1, true));
  EXPECT_EQ(next->count, PieceCount::ExitPaths);
  EXPECT_EQ(next->exits, exit_bit(1, false));
  EXPECT_EQ(finish->count, PieceCount::ExitPaths);
  EXPECT_EQ(finish->exits, exit_bit(1, true) | exit_bit(4, true) | exit_bit(7, true));
  EXPECT_EQ(phase2->count, PieceCount::PhaseReached);
  EXPECT_EQ(phase2->index, 1);
}

}  // namespace
}  // namespace mp
