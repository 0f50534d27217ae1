#include "session/renderer_lease.h"

#include <gtest/gtest.h>

namespace mp {
namespace {

// Stands for the GPU renderer: a setting the window changes and a job reads.
struct FakeRenderer {
  int tile_order = 0;
  std::vector<int> history;
  void set(int order) {
    tile_order = order;
    history.push_back(order);
  }
};

TEST(RendererLease, AChangeIsMadeAtOnceWhileTheWindowHoldsTheRenderer) {
  FakeRenderer r;
  RendererLease<FakeRenderer> lease;
  EXPECT_TRUE(lease.change(&r, [](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(r.tile_order, 1);
  EXPECT_FALSE(lease.lent());
}

TEST(RendererLease, WhileLentTheRendererIsNotTouchedAndChangesWaitInOrder) {
  FakeRenderer r;
  RendererLease<FakeRenderer> lease;
  lease.lend("compare");
  EXPECT_TRUE(lease.lent());
  EXPECT_EQ(lease.holder(), "compare");
  // What the job reads stays as it was lent, however often the window's control is used.
  EXPECT_FALSE(lease.change(&r, [](FakeRenderer& g) { g.set(1); }));
  EXPECT_FALSE(lease.change(&r, [](FakeRenderer& g) { g.set(0); }));
  EXPECT_FALSE(lease.change(&r, [](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(r.tile_order, 0);
  EXPECT_TRUE(r.history.empty());
  EXPECT_EQ(lease.waiting(), 3u);
  lease.give_back(&r);
  EXPECT_FALSE(lease.lent());
  EXPECT_EQ(lease.waiting(), 0u);
  EXPECT_EQ(r.history, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(r.tile_order, 1);
}

TEST(RendererLease, NoRendererMeansNoChange) {
  RendererLease<FakeRenderer> lease;
  EXPECT_FALSE(lease.change(nullptr, [](FakeRenderer& g) { g.set(1); }));
  lease.lend("");
  EXPECT_EQ(lease.holder(), "a job");
  lease.give_back(nullptr);  // the CPU path: nothing to make
  EXPECT_FALSE(lease.lent());
}

// The window renders again once the generation moves: a job that drew with the renderer, or a
// change of its settings, made now or when the job gives it back.
TEST(RendererLease, TheGenerationMovesWhenAJobGivesItBackOrAChangeIsMade) {
  FakeRenderer r;
  RendererLease<FakeRenderer> lease;
  EXPECT_EQ(lease.generation(), 0u);
  lease.lend("sine sweep");
  EXPECT_FALSE(lease.change(&r, [](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(lease.generation(), 0u);  // nothing changed yet: the window draws what it has
  lease.give_back(&r);
  EXPECT_EQ(lease.generation(), 1u);
  EXPECT_TRUE(lease.change(&r, [](FakeRenderer& g) { g.set(0); }));
  EXPECT_EQ(lease.generation(), 2u);
}

}  // namespace
}  // namespace mp
