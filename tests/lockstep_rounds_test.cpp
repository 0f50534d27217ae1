// perturb's lockstep rounds counted from the lanes' orbits (render/lockstep_rounds.h), by hand.
#include "render/lockstep_rounds.h"

#include <gtest/gtest.h>

#include <initializer_list>

namespace mp {
namespace {

struct Warp {
  LaneOrbit lanes[32];
  // Lanes [from, to) with a pixel that escapes at `at` (0: never) after rebasing at `rebases`.
  Warp& set(int from, int to, unsigned at, std::initializer_list<unsigned> rebases = {}) {
    for (int i = from; i < to; ++i) lanes[i] = {true, at, rebases};
    return *this;
  }
  WarpRounds run(unsigned last, unsigned max_iter) const {
    return lockstep_rounds(lanes, last, max_iter);
  }
};

void expect(const WarpRounds& w, unsigned long long rounds, unsigned long long done,
            unsigned long long rebase) {
  EXPECT_EQ(w.rounds, rounds);
  EXPECT_EQ(w.done_rounds, done);
  EXPECT_EQ(w.rebase_rounds, rebase);
}

TEST(LockstepRounds, OneRoundWhereEveryLaneEscapesTogether) {
  expect(Warp().set(0, 32, 5).run(100, 1000), 1, 1, 0);
}

TEST(LockstepRounds, FinishedLanesWaitAndVoteAtTheReferencesEnd) {
  // Half the lanes escape at 5, the rest at 40: with a reference of 101 points nothing between.
  expect(Warp().set(0, 16, 5).set(16, 32, 40).run(100, 1000), 2, 2, 0);
  // With 11 points the finished half votes 10 steps after each round: 15, 25, 35.
  expect(Warp().set(0, 16, 5).set(16, 32, 40).run(10, 1000), 5, 5, 0);
}

TEST(LockstepRounds, LanesRebasingAtOneStepShareItsRound) {
  Warp w;
  w.set(0, 32, 30);
  w.lanes[3].rebases = {7, 20};
  w.lanes[4].rebases = {7};
  expect(w.run(100, 1000), 3, 1, 2);
  // An escape comes before the rebase test: a lane escaping where another rebases finishes.
  Warp x;
  x.set(0, 32, 20).set(0, 1, 10).set(1, 2, 20, {10});
  expect(x.run(100, 1000), 2, 2, 1);
}

TEST(LockstepRounds, LanesWithoutAPixelHaveFinishedFromTheStart) {
  // Four pixels escape at 50; the other 28 lanes vote at 20 and 40.
  expect(Warp().set(0, 4, 50).run(20, 1000), 3, 3, 0);
}

TEST(LockstepRounds, TheLimitEndsTheLastRound) {
  expect(Warp().set(0, 32, 0).run(1000, 100), 1, 0, 0);
  // A lane that rebases at the limit rebases in that round.
  expect(Warp().set(0, 32, 0, {100}).run(1000, 100), 1, 0, 1);
  // Lanes that never escape keep the warp to the limit, the finished ones voting on the way
  // (30, 80, 130, 180, the limit at 200).
  expect(Warp().set(0, 16, 0).set(16, 32, 30).run(50, 200), 5, 5, 0);
}

}  // namespace
}  // namespace mp
