// The counter thread's decisions on the CPU: when the counter data image is renewed (never
// cutting a sample under a launch), and when the window's thread samples at all (around the
// frames it reads, within its CPU budget, fresh within a few frames).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "counters/sampling_policy.h"

namespace mp::counters {
namespace {

TEST(Renewal, UnderALaunchAnImageIsReadUntilHalfFull) {
  EXPECT_EQ(renewal({1024, 0, 0, false}, false), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 300, 299, false}, true), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 511, 511, false}, true), Renewal::Keep);
}

TEST(Renewal, BetweenLaunchesAnEighthFullImageIsRenewed) {
  // So that the next run of launches starts on an almost empty image.
  EXPECT_EQ(renewal({1024, 127, 127, false}, false), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 128, 128, false}, false), Renewal::AtBoundary);
  EXPECT_EQ(renewal({1024, 301, 300, false}, false), Renewal::Cut);
}

TEST(Renewal, HalfFullItIsRenewedOnASampleBoundary) {
  EXPECT_EQ(renewal({1024, 512, 512, false}, true), Renewal::AtBoundary);
  EXPECT_EQ(renewal({1024, 700, 700, false}, false), Renewal::AtBoundary);
}

TEST(Renewal, ASamplePartlyReadIsNotCutUnderALaunch) {
  // The last sample has some of its units' records in the image: renewing would leave them
  // behind and read the rest as a whole sample. While a launch runs, the decode goes on.
  EXPECT_EQ(renewal({1024, 513, 512, false}, true), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 896, 895, false}, true), Renewal::Keep);
  // With no launch under way, the cut sample is left unread and costs nothing.
  EXPECT_EQ(renewal({1024, 513, 512, false}, false), Renewal::Cut);
}

TEST(Renewal, UnderALaunchANearlyFullImageCutsOneSampleRatherThanFill) {
  // A full image drops what the hardware buffer holds; a cut costs the launch one sample.
  EXPECT_EQ(renewal({1024, 897, 896, false}, true), Renewal::Cut);
  EXPECT_EQ(renewal({1024, 1000, 999, false}, true), Renewal::Cut);
}

TEST(Renewal, AFullImageIsRenewedWhateverItCuts) {
  EXPECT_EQ(renewal({1024, 1024, 1023, true}, true), Renewal::Cut);
  EXPECT_EQ(renewal({1024, 1024, 1024, true}, true), Renewal::AtBoundary);
}

TEST(Renewal, ADecodeSequenceRenewsOnlyOnBoundaries) {
  // A recorded run of decodes, one every 10 ms at a 200 us interval, most ending mid-sample,
  // with a launch always under way: every renewal falls on a boundary, none cuts.
  const std::vector<std::pair<std::size_t, bool>> decodes = {
      {50, true},   {100, true}, {150, false}, {200, true},  {250, true}, {300, true},
      {350, true},  {400, true}, {450, false}, {500, true},  {550, true}, {600, true},
      {650, false}, {700, true}, {750, true},  {800, false}, {850, true}, {900, true}};
  std::size_t base = 0;  // samples decoded before this image
  int renewals = 0;
  for (const auto& [decoded, mid_sample] : decodes) {
    const std::size_t completed = decoded - base;
    const Renewal r = renewal({1024, completed + (mid_sample ? 1 : 0), completed, false}, true);
    EXPECT_NE(r, Renewal::Cut) << decoded;
    if (r == Renewal::AtBoundary) {
      EXPECT_FALSE(mid_sample);
      base = decoded;
      ++renewals;
    }
  }
  EXPECT_EQ(renewals, 1);
}

// A second of the window as the duty cycle sees it, simulated at 0.25 ms steps: frames every
// `frame` s; a frame read keeps launches pending for `busy` s; sampling costs `on_cost` of a
// core while it runs and `arm_cost` s to start.
struct Simulated {
  double cpu = 0, wall = 0;
  std::vector<double> reads;
};
Simulated simulate(double seconds, double frame, double busy, double on_cost, double arm_cost,
                   DutyCycle::Settings settings = DutyCycle::Settings()) {
  DutyCycle d(settings);
  Simulated r;
  const double dt = 0.00025;
  bool on = false;
  double settled_at = 0, busy_until = -1, next_frame = 0;
  for (double t = 0; t < seconds; t += dt) {
    if (t >= next_frame) {
      next_frame += frame;
      if (d.offer(t, on && t >= settled_at)) {
        r.reads.push_back(t);
        busy_until = t + busy;
      }
    }
    const DutyCycle::Plan p = d.plan(t, on, t < busy_until);
    if (p.on && !on) {
      r.cpu += arm_cost;
      settled_at = t + arm_cost + 0.0003;
      d.armed(arm_cost + 0.0003);
    }
    on = p.on;
    if (on) r.cpu += on_cost * dt;
    d.spent(t, r.cpu);
  }
  r.wall = seconds;
  return r;
}

// The budget over the run, the bucket it starts with, and a reading (of CPU `reading`) begun as
// it ran out.
double within_budget(const Simulated& r, double reading) {
  const DutyCycle::Settings s;
  return s.budget * r.wall + s.bucket + reading;
}

double longest_gap(const std::vector<double>& reads) {
  double g = 0;
  for (std::size_t i = 1; i < reads.size(); ++i) g = std::max(g, reads[i] - reads[i - 1]);
  return g;
}

TEST(DutyCycle, AFrameIsReadOnlyOnceSamplingCounts) {
  DutyCycle d;
  EXPECT_FALSE(d.offer(0.0, false));
  EXPECT_TRUE(d.offer(0.016, true));
  // Not again before the minimum period.
  EXPECT_FALSE(d.offer(0.032, true));
}

TEST(DutyCycle, ItArmsJustBeforeTheFrameItExpects) {
  DutyCycle d;
  EXPECT_TRUE(d.offer(0, true));
  EXPECT_FALSE(d.offer(0.016, false));
  EXPECT_FALSE(d.offer(0.032, false));
  d.armed(0.002);  // and 1 ms of slack
  // Due at 50 ms: the frame expected then is the second after the last one offered, at 64 ms.
  const DutyCycle::Plan off = d.plan(0.033, false, false);
  EXPECT_FALSE(off.on);
  EXPECT_NEAR(off.next, 0.061, 1e-9);
  EXPECT_FALSE(d.plan(0.0605, false, false).on);
  // On, and the arm time that close: it stays on rather than stopping and starting again.
  EXPECT_FALSE(d.plan(0.040, true, false).on);
  EXPECT_TRUE(d.plan(0.058, true, false).on);
  // Armed, it stays on until it reads a frame, which it does at once.
  EXPECT_TRUE(d.plan(0.063, true, false).on);
  EXPECT_TRUE(d.offer(0.064, true));
}

TEST(DutyCycle, LaunchesAwaitingFiguresKeepItOn) {
  DutyCycle d;
  EXPECT_TRUE(d.plan(5.0, false, true).on);
  EXPECT_TRUE(d.plan(5.0, true, true).on);
}

TEST(DutyCycle, FramesThatStopLeaveItOffUntilTheNextComes) {
  DutyCycle d;
  EXPECT_FALSE(d.plan(0, false, false).on);  // none yet
  for (int i = 0; i < 10; ++i) d.offer(i / 60.0, true);
  const DutyCycle::Plan p = d.plan(2.0, true, false);
  EXPECT_FALSE(p.on);
  EXPECT_EQ(p.next, DutyCycle::kNever);
}

TEST(DutyCycle, TheWindowsFramesAreReadWithinTheBudgetAndFresh) {
  // 60 frames a second, a reading pending 5 ms; decoding costs 30% of a core while sampling
  // runs (the idle GPU's samples as much as a frame's) and a start 2 ms: what the counter
  // thread cost all the time at a 200 us interval, sampling only around one frame in a few.
  const Simulated r = simulate(10, 1.0 / 60, 0.005, 0.30, 0.002);
  EXPECT_LE(r.cpu, within_budget(r, 0.002 + 0.3 * 0.01));
  EXPECT_GE(r.reads.size(), 80u);  // more than 8 a second
  EXPECT_LE(longest_gap(r.reads), 7.5 / 60) << "at most seven frames between readings";
}

TEST(DutyCycle, CostlierReadingsComeRarerWithinTheBudget) {
  // Long frames (200 ms of launches at 50% of a core to read): as many as the budget allows.
  const Simulated r = simulate(20, 0.2, 0.2, 0.5, 0.002);
  EXPECT_LE(r.cpu, within_budget(r, 0.002 + 0.5 * 0.21));
  EXPECT_GE(r.reads.size(), 8u);
  // Vsync-free frames every 2 ms, cheap readings: the minimum period rules.
  const Simulated fast = simulate(10, 0.002, 0.001, 0.3, 0.001);
  EXPECT_LE(fast.cpu, within_budget(fast, 0.001 + 0.3 * 0.01));
  EXPECT_LE(longest_gap(fast.reads), 0.1);
}

}  // namespace
}  // namespace mp::counters
