// The counter thread's decisions on the CPU: when the counter data image is renewed (never
// cutting a sample under a launch).
#include <gtest/gtest.h>

#include <vector>

#include "counters/sampling_policy.h"

namespace mp::counters {
namespace {

TEST(Renewal, AnImageIsReadUntilHalfFull) {
  EXPECT_EQ(renewal({1024, 0, 0, false}, false), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 300, 299, false}, false), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 511, 511, false}, true), Renewal::Keep);
}

TEST(Renewal, HalfFullItIsRenewedOnASampleBoundary) {
  EXPECT_EQ(renewal({1024, 512, 512, false}, true), Renewal::AtBoundary);
  EXPECT_EQ(renewal({1024, 700, 700, false}, false), Renewal::AtBoundary);
}

TEST(Renewal, ASamplePartlyReadIsNotCutUnderALaunch) {
  // The last sample has some of its units' records in the image: renewing would leave them
  // behind and read the rest as a whole sample. While a launch runs, the decode goes on.
  EXPECT_EQ(renewal({1024, 513, 512, false}, true), Renewal::Keep);
  EXPECT_EQ(renewal({1024, 900, 899, false}, true), Renewal::Keep);
  // With no launch under way, the cut sample is left unread and costs nothing.
  EXPECT_EQ(renewal({1024, 513, 512, false}, false), Renewal::Cut);
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

}  // namespace
}  // namespace mp::counters
