#include "session/renderer_lease.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

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

RendererLease<FakeRenderer> owning() {
  return RendererLease<FakeRenderer>(std::make_unique<FakeRenderer>());
}

TEST(RendererLease, TheSessionOwnsTheRendererAndTheWindowHasItWhileNoJobDoes) {
  RendererLease<FakeRenderer> lease = owning();
  ASSERT_TRUE(lease.has_renderer());
  EXPECT_EQ(lease.for_window(), lease.peek());
  FakeRenderer* lent = lease.lend("compare");
  EXPECT_EQ(lent, lease.peek());
  EXPECT_EQ(lease.for_window(), nullptr) << "the window's frames get none while a job has it";
  EXPECT_EQ(&lease.for_job(), lent);
  lease.give_back();
  EXPECT_EQ(lease.for_window(), lease.peek());
}

TEST(RendererLease, AJobAskingForItOutsideItsLeaseFails) {
  RendererLease<FakeRenderer> lease = owning();
  EXPECT_THROW(lease.for_job(), std::logic_error);
  lease.lend("sine sweep");
  EXPECT_NO_THROW(lease.for_job());
  lease.give_back();
  EXPECT_THROW(lease.for_job(), std::logic_error);
}

TEST(RendererLease, AChangeIsMadeAtOnceWhileTheWindowHoldsTheRenderer) {
  RendererLease<FakeRenderer> lease = owning();
  EXPECT_TRUE(lease.change([](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(lease.peek()->tile_order, 1);
  EXPECT_FALSE(lease.lent());
}

TEST(RendererLease, WhileLentTheRendererIsNotTouchedAndChangesWaitInOrder) {
  RendererLease<FakeRenderer> lease = owning();
  const FakeRenderer& r = *lease.peek();
  lease.lend("compare");
  EXPECT_TRUE(lease.lent());
  EXPECT_EQ(lease.holder(), "compare");
  // What the job reads stays as it was lent, however often the window's control is used.
  EXPECT_FALSE(lease.change([](FakeRenderer& g) { g.set(1); }));
  EXPECT_FALSE(lease.change([](FakeRenderer& g) { g.set(0); }));
  EXPECT_FALSE(lease.change([](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(r.tile_order, 0);
  EXPECT_TRUE(r.history.empty());
  EXPECT_EQ(lease.waiting(), 3u);
  lease.give_back();
  EXPECT_FALSE(lease.lent());
  EXPECT_EQ(lease.waiting(), 0u);
  EXPECT_EQ(r.history, (std::vector<int>{1, 0, 1}));
  EXPECT_EQ(r.tile_order, 1);
}

TEST(RendererLease, NoRendererMeansNoChange) {
  RendererLease<FakeRenderer> lease;  // the CPU path
  EXPECT_FALSE(lease.has_renderer());
  EXPECT_EQ(lease.for_window(), nullptr);
  EXPECT_FALSE(lease.change([](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(lease.lend(""), nullptr);
  EXPECT_EQ(lease.holder(), "a job");
  EXPECT_THROW(lease.for_job(), std::logic_error);
  lease.give_back();  // nothing to make
  EXPECT_FALSE(lease.lent());
}

// The window renders again once the generation moves: a job that drew with the renderer, or a
// change of its settings, made now or when the job gives it back.
TEST(RendererLease, TheGenerationMovesWhenAJobGivesItBackOrAChangeIsMade) {
  RendererLease<FakeRenderer> lease = owning();
  EXPECT_EQ(lease.generation(), 0u);
  lease.lend("sine sweep");
  EXPECT_FALSE(lease.change([](FakeRenderer& g) { g.set(1); }));
  EXPECT_EQ(lease.generation(), 0u);  // nothing changed yet: the window draws what it has
  lease.give_back();
  EXPECT_EQ(lease.generation(), 1u);
  EXPECT_TRUE(lease.change([](FakeRenderer& g) { g.set(0); }));
  EXPECT_EQ(lease.generation(), 2u);
}

}  // namespace
}  // namespace mp
