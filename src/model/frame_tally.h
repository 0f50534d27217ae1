// A frame's own counts for the whole-kernel model (model/kernel_parts.h): from each pixel's step
// count, how often each warp ran each loop of the orbit (its slowest lane's trips: the warp runs a
// loop until its last lane leaves it), how often it reached each phase of the blocks, and how many
// warps, warp visits of a pixel's code, queue trips and block tallies the launch shape makes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/kernel_parts.h"
#include "perturbation.h"

namespace mp {

struct FrameTally {
  std::string missing;        // empty: the counts below are the frame's; else what was missing
  int copies = 1;             // of the orbit's code in the kernel (Shape::Rows: two rows a warp)
  std::vector<double> trips;  // per region of each copy (copy * regions + region): trips begun
  // The same: trips that ran a pair's second block, or a single step's code after its escape
  // test (all its trips but a last one that escaped).
  std::vector<double> seconds;
  std::vector<double> reached;  // per phase of each copy: warp visits in which a lane reached it
  double pixel_visits = 0;      // warp visits of a copy's pixel code (a tile, a warp's row)
  double warps = 0;             // warps launched
  double queue_trips = 0;       // the queue's takes: units and tail places
  double segment_changes = 0;   // the queue's warps' changes of segment (four a warp at most)
  double block_tallies = 0;     // trips of the blocks' tally loops (a trip per warp of a block)
  double blocks = 0;            // blocks that tally (Grid, Rows)
  bool efficiencies = false;    // the frame kept each tile's SIMT efficiency (FrameShape's)
  // Warp visits of a copy of the orbit's code by the ways its lanes left the regions (exit_bit's
  // of each lane, or-ed): the code after a loop that only its escaping (or only its counted-out)
  // lanes reach runs in the visits whose lanes left that way (KernelPiece::exits).
  std::map<std::pair<int, std::uint32_t>, double> exit_visits;
  // perturb: which of the grid's offsets from the reference are zero (bit 0: dc0x, bit 1: dc0y;
  // -1: not known).
  int zero_offsets = -1;
  // Lane refill: the rounds, passes and round paths its simulated warps ran (RefillPath); empty
  // for the other shapes.
  std::vector<double> refill_paths;
  // perturb: its warps' rounds (leaving the steps' loop for a lane's escape or rebase, or the
  // limit), those of them with a finished lane and those with a rebase, as the kernel counted
  // them (-1: not counted).
  double rounds = -1, done_rounds = -1, rebase_rounds = -1;
  double warp_steps = 0;   // each warp's slowest lane's steps, summed (the kernels' warp_iters)
  double pixel_steps = 0;  // every pixel's steps
};

struct FrameShape {
  variants::Shape shape = variants::Shape::Queue;
  int width = 0, height = 0;
  unsigned max_iter = 0;
  // Shape::Queue: the tiles went costliest first (units of several cheap tiles and a tail);
  // the persistent warps launched (0: sm_count x warps_per_sm, at most one per tile), and the
  // SMs and warps an SM holds, which size the tail (render_kernel.cuh). Shape::Refill's warps
  // the same way.
  bool by_cost = false;
  // The frame kept each tile's SIMT efficiency (the divergence view): a division a tile visit.
  bool efficiencies = false;
  double warps_launched = 0;
  // The launches the frame went in (GpuFrameStats::launches; 0: not known, taken as one).
  int launches = 0;
  int sm_count = 0;
  int warps_per_sm = 0;
  // Shape::Pixel (perturb): which of the grid's offsets from the reference are zero (bit 0: dc0x,
  // bit 1: dc0y; -1: not known), FrameTally's.
  int zero_offsets = -1;
  // perturb: the warps' rounds, those with a finished lane and those with a rebase, as its
  // kernel counted them (GpuFrameStats's; -1: not counted), FrameTally's.
  double rounds = -1, done_rounds = -1, rebase_rounds = -1;
};

// perturb's rounds into the shape: those a frame's tallies counted (the kernel's on the GPU, the
// CPU reference's warps' on the CPU).
void take_rounds(FrameShape& shape, const PerturbTally& t);

// FrameShape::zero_offsets of a perturbation frame over grid g.
int zero_grid_offsets(const DeepGrid& g);

// `counts`: width x height step counts, row by row (a pixel whose count is max_iter ran to the
// limit; fewer: it escaped at that step). The schedule's regions are orbit_regions(s).
FrameTally tally_frame(const BlockSchedule& s, const FrameShape& f, const unsigned* counts);

// The queue's units for a frame ordered by cost (tile_order.cuh): the tiles' costs (their slowest
// lane's steps) in buckets by powers of two, cheap buckets cut into units of several tiles, the
// cheapest `tail` places handed out one at a time. Returns units + tail places.
double queue_takes(const std::vector<unsigned>& tile_costs, unsigned tail);

}  // namespace mp
