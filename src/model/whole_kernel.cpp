#include "model/whole_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernel_params.h"
#include "model/pipe_rates.h"
#include "model/variant_table.h"
#include "pixel.h"
#include "sm_arch.h"

namespace mp {
namespace {

// The steps a trip of one of the orbit's loops runs whole.
double steps_per_trip(const OrbitRegion& r) {
  return r.kind == RegionKind::Pairs ? 2.0 * r.block : r.block;
}

}  // namespace

InstrMix WholeKernel::total() const {
  InstrMix m;
  for (const PartFigures& p : parts) m = m + p.mix;
  return m;
}

double WholeKernel::outside_step_loop() const {
  const double all = instructions();
  return all > 0 ? 1 - part(KernelPart::StepLoop).mix.total() / all : 0;
}

WholeKernel model_whole_kernel(const KernelCut& cut, const FrameTally& t, bool stops_cycles,
                               double run_warp_steps) {
  WholeKernel w;
  if (!cut.unusable.empty()) {
    w.unusable = cut.unusable;
    return w;
  }
  if (!t.missing.empty()) {
    w.unusable = t.missing;
    return w;
  }
  const bool grid_offsets =
      std::any_of(cut.pieces.begin(), cut.pieces.end(),
                  [](const KernelPiece& p) { return p.count == PieceCount::GridOffsets; });
  if (grid_offsets && t.zero_offsets < 0) {
    w.unusable =
        "perturb's set-up runs as the grid's offsets from the reference have it, and this frame's "
        "model is not given them (bench's rows are)";
    return w;
  }
  const bool rounds = std::any_of(cut.pieces.begin(), cut.pieces.end(), [](const KernelPiece& p) {
    return p.count == PieceCount::Rounds;
  });
  if (rounds && (t.rounds < 0 || t.done_rounds < 0 || t.rebase_rounds < 0)) {
    w.unusable =
        "perturb's rounds (its warps leaving their steps together for a lane's escape or rebase) "
        "are counted where every step is iterated in double (by the kernel on the GPU, by the CPU "
        "reference's warps run as the kernel runs them), and this frame has no such count";
    return w;
  }
  if (rounds)
    w.unplaced.push_back(
        "perturb's rounds, those with a finished lane and those with a rebase: the kernel's "
        "counts on the GPU, the CPU reference's warps' on the CPU; a round's code counted whole, "
        "and its test of the limit not once more where a warp ends there");
  if (grid_offsets) {
    w.unplaced.push_back(
        "perturb's set-up counted as a pixel of ordinary numbers runs it (no zero, subnormal or "
        "out-of-range value; the grid's offsets as the frame has them); the warps launched: the "
        "most that stay resident");
  }
  const std::size_t regions = cut.regions.size();
  const std::size_t phases = regions ? static_cast<std::size_t>(cut.regions.back().phase) + 1 : 0;
  if (t.copies != cut.copies || t.trips.size() != regions * cut.copies ||
      t.reached.size() != phases * cut.copies) {
    w.unusable = "the frame's counts are of another launch shape than the listing's (" +
                 std::to_string(t.copies) + " copies of the orbit's code against " +
                 std::to_string(cut.copies) + ")";
    return w;
  }
  // A variant that stops periodic orbits ran fewer steps than its counts give (a pixel found
  // periodic counts the limit but stops where the repeat was met). The repeat is looked for in
  // the blocks longer than the replay's, and an orbit stopped there leaves the loops of its phase
  // and skips every later one: all those loops (from the first phase that looks for repeats on)
  // are scaled by one factor to the warp steps that ran; the loops before it as counted.
  double cycle_scale = 1;
  int cycle_phase = -1;
  if (stops_cycles && run_warp_steps >= 0) {
    for (const OrbitRegion& r : cut.regions)
      if (r.kind == RegionKind::Pairs && r.block > kReplaySteps) {
        cycle_phase = r.phase;
        break;
      }
    double cycle_steps = 0;
    for (const KernelPiece& p : cut.pieces)
      if (p.count == PieceCount::RegionTrips &&
          cut.regions[p.index % regions].phase >= cycle_phase && cycle_phase >= 0)
        cycle_steps += t.trips[p.index] * steps_per_trip(cut.regions[p.index % regions]);
    const double others = t.warp_steps - cycle_steps;
    cycle_scale =
        cycle_steps > 0 ? std::clamp((run_warp_steps - others) / cycle_steps, 0.0, 1.0) : 1;
    char line[200];
    std::snprintf(line, sizeof line,
                  "orbits stopped as periodic: the loops from the first that looks for repeats on "
                  "counted at %.1f%% of the trips the step counts give (the warp steps that ran)",
                  100 * cycle_scale);
    w.unplaced.push_back(line);
  }
  for (const KernelPiece& p : cut.pieces) {
    double times = 0;
    switch (p.count) {
      case PieceCount::RegionTrips: times = t.trips[p.index]; break;
      case PieceCount::RegionSeconds: times = t.seconds[p.index]; break;
      case PieceCount::PhaseReached: times = t.reached[p.index]; break;
      case PieceCount::PixelVisits: times = t.pixel_visits; break;
      case PieceCount::Warps: times = t.warps; break;
      case PieceCount::QueueTrips: times = t.queue_trips; break;
      case PieceCount::SegmentChanges: times = t.segment_changes; break;
      case PieceCount::ExitPaths:
        for (const auto& [key, visits] : t.exit_visits)
          if (key.first == p.index && (key.second & p.exits)) times += visits;
        break;
      case PieceCount::BlockTallies: times = t.block_tallies; break;
      case PieceCount::Blocks: times = t.blocks; break;
      case PieceCount::Efficiencies: times = t.efficiencies ? t.pixel_visits : 0; break;
      case PieceCount::Never: times = 0; break;
      case PieceCount::GridOffsets:
        times = t.zero_offsets >= 0 && (p.exits >> t.zero_offsets & 1) ? t.pixel_visits : 0;
        break;
      case PieceCount::Unusual: times = 0; break;
      case PieceCount::Rounds: times = t.rounds; break;
      case PieceCount::DoneRounds: times = t.done_rounds; break;
      case PieceCount::RebaseRounds: times = t.rebase_rounds; break;
      case PieceCount::RefillPaths:
        times =
            static_cast<std::size_t>(p.index) < t.refill_paths.size() ? t.refill_paths[p.index] : 0;
        break;
    }
    const bool loop = p.count == PieceCount::RegionTrips || p.count == PieceCount::RegionSeconds;
    if (loop && cycle_phase >= 0 && cut.regions[p.index % regions].phase >= cycle_phase)
      times *= cycle_scale;
    PartFigures& f = w.parts[static_cast<int>(p.part)];
    f.mix = f.mix + p.mix * times;
  }
  // The counts give the warps' steps the kernel tallies: where they do not (the window's counts
  // read back from the smooth values, a frame of other counts), the parts are off by as much.
  if (!stops_cycles && run_warp_steps > 0 &&
      std::abs(t.warp_steps - run_warp_steps) > 1e-3 * run_warp_steps) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "the pixels' counts give %.6g warp steps where the frame ran %.6g (%+.2f%%)",
                  t.warp_steps, run_warp_steps,
                  100 * (t.warp_steps - run_warp_steps) / run_warp_steps);
    w.unplaced.push_back(line);
  }
  if (!t.refill_paths.empty())
    w.unplaced.push_back(
        "lane refill's trips and rounds: a simulation's, not counted (its warps over the frame's "
        "step counts, each tile taken by the warp that reaches its take first); the new pixels' "
        "code counted whole where a lane's pixel lies in the image");
  if (t.segment_changes > 0)
    w.unplaced.push_back(
        "the queue's segment changes: four a warp where tiles go by cost (the most); a take: the "
        "path through its loop that falls "
        "through each branch (a unit of the global queue)");
  if (cut.arch > 0 && has_heavy_lite_split(pipe_rates(cut.arch / 10, cut.arch % 10)))
    w.not_modelled.push_back(
        "fmaheavy and fmalite: the FMA pipe is modelled as a whole. Only IMAD, IMUL, IDP and "
        "VIADD must go to fmaheavy; the hardware splits the FP32 instructions between the halves "
        "by a rule the SASS does not show (the counters split loops of the same kinds of "
        "instruction differently: docs/model.md)");
  w.unplaced.push_back(
      "a loop's last trip counted whole where a lane leaves it early; the code between the phases "
      "of the blocks split at the branch that skips the next phase");
  return w;
}

std::vector<PipeLoad> whole_kernel_loads(const PipeRates& rates, int sm_count, const WholeKernel& w,
                                         double measured_cycles, double clock_ghz) {
  return pipe_loads(rates, sm_count, w.total(), -1, 1.0, measured_cycles, clock_ghz);
}

WholeKernel whole_kernel_of_frame(VariantId v, const KernelCut& cut, const FrameShape& shape,
                                  const unsigned* counts, double run_warp_steps) {
  const std::optional<BlockSchedule> s = block_schedule(v);
  if (!s || !cut.unusable.empty()) {
    WholeKernel w;
    w.unusable = cut.unusable.empty() ? "no schedule of blocks for this variant" : cut.unusable;
    return w;
  }
  return model_whole_kernel(cut, tally_frame(*s, shape, counts), variant_info(v).stops_cycles,
                            run_warp_steps);
}

std::vector<unsigned> counts_from_pixels(const float* pixels, std::size_t count,
                                         unsigned max_iter) {
  std::vector<unsigned> n(count);
  for (std::size_t i = 0; i < count; ++i) {
    const float smooth = pixels[i * kFloatsPerPixel];
    // Escaped: smooth + 2 lies in [n - 0.002, n + 1) (log2 log2 |z|^2 is in (3, 4.002] at the
    // escape for |c| below 3); the overlap of two counts' ranges is split in its middle.
    n[i] = smooth < 0 ? max_iter
                      : static_cast<unsigned>(
                            std::min<double>(max_iter, std::max(1.0, std::floor(smooth + 2.001))));
  }
  return n;
}

int max_warps_per_sm(int cc_major, int cc_minor) {
  const int cc = sm_arch(cc_major, cc_minor);
  if (cc == 75) return 32;
  if (cc == 86 || cc == 87 || cc == 89 || cc >= 120) return 48;
  return 64;
}

}  // namespace mp
