// Whether the window renders: the one decision, from the frame wanted and the frame shown.
#include "session/frame_key.h"

#include <gtest/gtest.h>

#include <memory>

#include "session/renderer_lease.h"

namespace mp {
namespace {

FrameKey shown_key() {
  FrameKey k;
  k.of.view = View();
  k.of.variant = VariantId::Fma4;
  k.of.width = 800;
  k.of.height = 600;
  return k;
}

TEST(FrameKey, TheFirstFrameRenders) {
  EXPECT_EQ(frame_start(shown_key(), std::nullopt, false, true), FrameStart::Fresh);
}

TEST(FrameKey, TheFrameShownIsNotRenderedAgainUnlessLive) {
  const FrameKey k = shown_key();
  EXPECT_EQ(frame_start(k, k, false, true), FrameStart::None);
  // Live starts the same frame again once the last one is done, never over one still refining.
  EXPECT_EQ(frame_start(k, k, true, true), FrameStart::Again);
  EXPECT_EQ(frame_start(k, k, true, false), FrameStart::None);
}

TEST(FrameKey, EachPartOfTheKeyAsksForAFreshFrame) {
  const FrameKey shown = shown_key();
  std::vector<FrameKey> wanted(7, shown);
  wanted[0].of.view = zoom_about(shown.of.view, 1.5, 400, 300, 800, 600);  // a new view
  wanted[1].of.variant = VariantId::Fma5;                                  // another variant
  wanted[2].of.width = 801;                                                // a resize
  wanted[3].of.divergence = true;                                          // D
  wanted[4].of.perturbation = true;   // the precision rule moved into deep views
  wanted[5].auto_iters = true;        // the automatic limit turned on wants a frame to judge
  wanted[6].renderer_generation = 1;  // a job drew with the renderer, or its settings changed
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(frame_start(wanted[i], shown, false, false), FrameStart::Fresh);
    EXPECT_EQ(frame_start(wanted[i], shown, true, true), FrameStart::Fresh);
  }
}

TEST(FrameKey, AnIterationLimitIsPartOfTheView) {
  const FrameKey shown = shown_key();
  FrameKey wanted = shown;
  wanted.of.view.max_iter *= 2;  // PgUp, or the automatic limit raised
  EXPECT_EQ(frame_start(wanted, shown, false, true), FrameStart::Fresh);
}

// The sweep and compare leave the renderer's memory of the frame their own: giving it back moves
// the generation, and the key the window wants with it.
TEST(FrameKey, AJobGivingTheRendererBackAsksForAFreshFrame) {
  struct Renderer {};
  RendererLease<Renderer> lease(std::make_unique<Renderer>());
  FrameKey shown = shown_key();
  shown.renderer_generation = lease.generation();
  lease.lend("compare");
  FrameKey wanted = shown;
  wanted.renderer_generation = lease.generation();
  EXPECT_EQ(frame_start(wanted, shown, false, true), FrameStart::None);
  lease.give_back();
  wanted.renderer_generation = lease.generation();
  EXPECT_EQ(frame_start(wanted, shown, false, true), FrameStart::Fresh);
}

}  // namespace
}  // namespace mp
