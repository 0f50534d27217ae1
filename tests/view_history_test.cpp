#include "model/view_history.h"

#include <gtest/gtest.h>

namespace mp {
namespace {

ViewState at(double x) {
  ViewState s;
  s.view.center_x = BigReal(x);
  return s;
}

TEST(ViewHistory, BackAndForwardWalkTheVisits) {
  ViewHistory h;
  EXPECT_FALSE(h.back());
  EXPECT_FALSE(h.forward());
  for (double x : {1.0, 2.0, 3.0}) h.visit(at(x));
  EXPECT_TRUE(h.can_back());
  EXPECT_FALSE(h.can_forward());
  EXPECT_EQ(h.back(), at(2));
  EXPECT_EQ(h.back(), at(1));
  EXPECT_FALSE(h.back()) << "nothing before the first";
  EXPECT_EQ(h.forward(), at(2));
  EXPECT_EQ(h.forward(), at(3));
  EXPECT_FALSE(h.forward()) << "nothing after the last";
  EXPECT_EQ(*h.current(), at(3));
}

TEST(ViewHistory, ANewVisitDropsThePlacesAhead) {
  ViewHistory h;
  for (double x : {1.0, 2.0, 3.0}) h.visit(at(x));
  h.back();
  h.back();
  h.visit(at(9));
  EXPECT_FALSE(h.can_forward());
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.back(), at(1));
  EXPECT_EQ(h.forward(), at(9));
}

// The automatic limit raised on a place gone back to, as the window shows it (the place noted each
// frame): back and forward go on through every place, the raised limits kept.
TEST(ViewHistory, ALimitRaisedInPlaceKeepsThePlacesAhead) {
  ViewHistory h(256, 0.5);
  for (double x : {1.0, 2.0, 3.0}) h.visit(at(x));
  double t = 0;
  const auto show = [&](ViewState s) {  // a frame's note, then the limit doubled on it
    h.note(s, t += 1);
    h.tick(t);
    ViewState raised = s;
    raised.view.max_iter = s.view.max_iter * 2;
    h.amend(s, raised);
    h.note(raised, t += 1);
    h.tick(t);
    return raised;
  };
  ViewState two = show(*h.back());
  EXPECT_TRUE(h.can_forward());
  EXPECT_EQ(two.view.max_iter, 2048u);
  ViewState one = show(*h.back());
  EXPECT_EQ(one.view.center_x, at(1).view.center_x);
  EXPECT_FALSE(h.back()) << "nothing before the first";
  EXPECT_EQ(h.forward(), two) << "the place ahead, with its raised limit";
  EXPECT_EQ(h.forward()->view.center_x, at(3).view.center_x);
  EXPECT_EQ(h.size(), 3u);
  // Without amend, the raised limit would have been a new place (the old behaviour).
  ViewHistory k(256, 0.5);
  for (double x : {1.0, 2.0}) k.visit(at(x));
  ViewState back = *k.back();
  back.view.max_iter *= 2;
  k.note(back, 1);
  k.tick(2);
  EXPECT_FALSE(k.can_forward());
}

TEST(ViewHistory, TheSamePlaceIsKeptOnce) {
  ViewHistory h;
  h.visit(at(1));
  h.visit(at(1));
  EXPECT_EQ(h.size(), 1u);
  // Showing the place back returned (the caller then visits it) adds nothing.
  h.visit(at(2));
  const auto back = h.back();
  h.visit(*back);
  EXPECT_EQ(h.size(), 2u);
  EXPECT_TRUE(h.can_forward());
  // A different variant or palette is a different place.
  ViewState fma5 = at(1);
  fma5.variant = VariantId::Fma5;
  ViewState grey = at(1);
  grey.palette = "grey";
  h.visit(fma5);
  h.visit(grey);
  EXPECT_EQ(h.size(), 3u);
}

TEST(ViewHistory, KeepsTheNewestUpToItsCapacity) {
  ViewHistory h(4);
  for (int x = 0; x < 10; ++x) h.visit(at(x));
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(h.back(), at(8));
  EXPECT_EQ(h.back(), at(7));
  EXPECT_EQ(h.back(), at(6));
  EXPECT_FALSE(h.back());
  ViewHistory big;
  for (int x = 0; x < 1000; ++x) big.visit(at(x));
  EXPECT_EQ(big.size(), ViewHistory::kDefaultCapacity);
}

TEST(ViewHistory, ADragIsOnePlaceOnceItSettles) {
  ViewHistory h(256, 0.5);
  h.visit(at(0));
  for (int frame = 1; frame <= 60; ++frame) {  // a second of dragging at 60 fps
    h.note(at(frame * 0.01), frame / 60.0);
    h.tick(frame / 60.0);
  }
  EXPECT_EQ(h.size(), 1u) << "nothing is kept while the view moves";
  h.tick(1.4);
  EXPECT_EQ(h.size(), 1u) << "not yet settled";
  h.tick(1.5);
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(*h.current(), at(0.6));
  h.tick(9.0);
  EXPECT_EQ(h.size(), 2u);
}

TEST(ViewHistory, BackBeforeItSettlesReturnsToTheViewBeforeTheMove) {
  ViewHistory h;
  h.visit(at(0));
  h.note(at(5), 10.0);
  EXPECT_TRUE(h.can_back());
  EXPECT_EQ(h.back(), at(0));
  EXPECT_EQ(h.forward(), at(5)) << "the unsettled place was kept";
  // Back on a noted place that is the current one moves once, not twice.
  h.note(at(5), 11.0);
  EXPECT_EQ(h.back(), at(0));
}

}  // namespace
}  // namespace mp
