// The automatic iteration limit, raised as explorers raise it: where many pixels on the image's
// edge have not escaped by the limit, the limit is most likely what keeps them in (a deep view's
// edge seldom crosses the set's interior), so it doubles; so it does where many pixels escape
// only in the limit's last half, the ring around a blob that a minibrot in the middle of the
// view leaves at too low a limit (its edge all escapes). Where a doubling freed too few of
// either, they are inside, and it stays until the view moves on; but where most of the edge is
// at the limit, one doubling that frees few says nothing yet at a deep view, whose orbits are
// long (seahorse valley's at 1e-20 escape after thousands of steps): there it doubles on
// up to the depth's floor, or to 16 times the period of a minibrot in view (64 near it) where
// that is higher.
#pragma once

#include <string>

#include "floatexp.h"

namespace mp {

// The limit below which a deep view whose edge is mostly at the limit goes on doubling: 1,000
// steps for each decade of zoom past the whole set (span 1e-30: 30,000; 1e-300: 300,000); 0 at
// spans of 1e-3 and wider. The places explorers zoom to take a few hundred to a few thousand steps
// a decade to escape (docs/measurements.md's explorers' views), which a tenth of this had left
// black.
unsigned depth_floor(FloatExp span);

// The floor for a view with a minibrot of this period in it (the ball method's, 0: none found
// within the limit), or near it (`in_view` false: the view is within its boundary, its nucleus
// out of sight): kFloorPeriods times the period in view, as a minibrot's surroundings escape only
// after several times its period, and kNearFloorPeriods times near it, whose boundary is a copy
// of the whole set's and escapes later (docs/measurements.md); the depth's floor where that is
// more.
inline constexpr unsigned kFloorPeriods = 16, kNearFloorPeriods = 64;
unsigned limit_floor(FloatExp span, unsigned period, bool in_view);
// Whether the period, not the depth, sets that floor (the messages then name it).
bool floor_from_period(FloatExp span, unsigned period, bool in_view);
// "a minibrot of period P in view", or "near the view", for the messages that name the floor.
std::string minibrot_words(unsigned period, bool in_view);

// Of the pixels on the image's edge (2 floats each, smooth value first, as the renderers write
// them), the share that never escaped (a negative smooth value).
double edge_inside_share(const float* data, int width, int height);
// The same from the edge alone: its top and bottom rows (width pixels each) and left and right
// columns (height pixels each, corners included), 2 floats a pixel.
double edge_ring_inside_share(const float* top, const float* bottom, const float* left,
                              const float* right, int width, int height);

// Of all the pixels, the share that escaped only in the last half of `max_iter` steps (a smooth
// value above max_iter / 2); 0 where no pixel reached the limit, since a higher one would then
// change none.
double late_share(const float* data, int width, int height, unsigned max_iter);

class AutoIterations {
 public:
  // More than this share of the edge inside, or of the image escaping late, asks for a higher
  // limit.
  static constexpr double kRaiseShare = 0.02;
  static constexpr double kLateShare = 0.01;
  // Below the floor (the depth's or a minibrot's), more than this share of the edge at the limit
  // is no stall.
  static constexpr double kMostOfTheEdge = 0.5;

  // The limit for the view's next frame, from its last finished one: the same, or doubled (at
  // most `ceiling`); below `floor` (limit_floor's) an edge mostly at the limit is not a stall.
  unsigned next(double edge_inside, double late, unsigned max_iter, unsigned ceiling,
                unsigned floor = 0);
  // A zoom past a factor of 8 since the last raise: a new start, which still remembers the
  // highest limit at which a whole edge at the limit was not freed by a doubling (the set's
  // interior, or as deep as the depth's floor allows): at or below it a whole edge at the limit
  // no longer doubles.
  void reset();
  // A view elsewhere (a jump): a new start that remembers nothing.
  void forget();
  bool stalled() const { return stalled_; }

 private:
  unsigned held_inside_ = 0;
  // The edge's share inside and the late share when the limit was last doubled.
  double raised_at_ = -1, raised_late_ = -1;
  unsigned raised_to_ = 0;
  bool stalled_ = false;
};

}  // namespace mp
