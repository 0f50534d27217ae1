// The stall figures' arithmetic on hand-made readings: CUPTI's state names, the shares per
// state, a listing's lines, merging readings, and the texts the overlay and the SASS view show.
#include "model/stall_figures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace mp {
namespace {

StallFigures reading() {
  StallFigures f;
  for (const char* n :
       {"smsp__pcsamp_warps_issue_stalled_selected",
        "smsp__pcsamp_warps_issue_stalled_dispatch_stall",
        "smsp__pcsamp_warps_issue_stalled_dispatch_stall_not_issued",
        "smsp__pcsamp_warps_issue_stalled_wait", "smsp__pcsamp_warps_issue_stalled_not_selected"})
    f.reasons.push_back(stall_reason(n));
  // selected, dispatch, (dispatch not issued), wait, not selected
  f.pcs.push_back({"k", 0x100, {60, 30, 20, 10, 0}});   // 100 samples
  f.pcs.push_back({"k", 0x110, {10, 0, 0, 20, 20}});    // 50
  f.pcs.push_back({"k", 0x300, {0, 0, 0, 25, 0}});      // 25, not a listed line
  f.pcs.push_back({"other", 0x100, {25, 0, 0, 0, 0}});  // 25, another kernel
  f.readings = 1;
  return f;
}

std::vector<sass::Instruction> lines(std::initializer_list<unsigned> addresses) {
  std::vector<sass::Instruction> v;
  for (unsigned a : addresses) v.push_back({a, "", "FFMA", "R1, R2, R3, R4", std::nullopt});
  return v;
}

TEST(StallReasons, CuptiNamesBecomeLabels) {
  const StallReason a = stall_reason("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle");
  EXPECT_EQ(a.label, "math pipe throttle");
  EXPECT_FALSE(a.not_issued);
  const StallReason b = stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued");
  EXPECT_EQ(b.label, "long scoreboard");
  EXPECT_TRUE(b.not_issued);
  EXPECT_EQ(stall_reason("smsp__pcsamp_warps_issue_stalled_no_instruction").label,
            "no instructions");
  EXPECT_EQ(stall_reason("some__other_name").label, "other name");
  EXPECT_FALSE(is_stall("selected"));
  EXPECT_FALSE(is_stall("not selected"));
  EXPECT_TRUE(is_stall("dispatch stall"));
}

TEST(StallReasons, EveryKnownStateHasAMeaningAndAGlossaryLine) {
  std::ifstream in(std::string(MP_FIXTURES) + "/../../docs/model.md");
  ASSERT_TRUE(in) << "docs/model.md";
  std::stringstream doc;
  doc << in.rdbuf();
  for (std::string_view label : known_stall_labels()) {
    SCOPED_TRACE(std::string(label));
    EXPECT_FALSE(stall_meaning(label).empty());
    EXPECT_NE(doc.str().find("**" + std::string(label) + "**"), std::string::npos)
        << "docs/model.md's glossary names it";
  }
  EXPECT_TRUE(stall_meaning("a state nobody has named").empty());
}

TEST(StallFigures, SamplesLeaveTheNotIssuedPartsOut) {
  const StallFigures f = reading();
  EXPECT_EQ(f.samples(f.pcs[0]), 100u);
  EXPECT_EQ(f.not_issued(f.pcs[0]), 20u);
  EXPECT_EQ(f.samples_in(), 200u);
  EXPECT_EQ(f.samples_in("k"), 175u);
}

TEST(StallFigures, SummaryByStateMostFirst) {
  const StallSummary s = summarize(reading());
  ASSERT_EQ(s.samples, 200u);
  EXPECT_EQ(s.not_issued, 20u);
  // selected 95, wait 55, dispatch 30, not selected 20.
  ASSERT_EQ(s.reasons.size(), 4u);
  EXPECT_EQ(s.reasons[0].label, "selected");
  EXPECT_EQ(s.reasons[0].samples, 95u);
  EXPECT_EQ(s.reasons[1].label, "wait");
  EXPECT_DOUBLE_EQ(s.reasons[1].share, 55.0 / 200);
  EXPECT_EQ(s.reasons[2].label, "dispatch stall");
  EXPECT_EQ(s.reasons[2].not_issued, 20u);
  ASSERT_NE(s.leading_stall(), nullptr);
  EXPECT_EQ(s.leading_stall()->label, "wait");
  EXPECT_DOUBLE_EQ(s.issued_share(), 95.0 / 200);
  const StallSummary k = summarize(reading(), "other");
  EXPECT_EQ(k.samples, 25u);
  EXPECT_EQ(k.leading_stall(), nullptr);
}

TEST(StallFigures, ListedLinesGetTheirSharesOfTheKernel) {
  const ListingStalls l = attribute_to_lines(reading(), "k", lines({0x100, 0x110, 0x120}));
  EXPECT_EQ(l.all_samples, 200u);
  EXPECT_EQ(l.function_samples, 175u);
  EXPECT_EQ(l.on_lines, 150u);
  ASSERT_EQ(l.lines.size(), 3u);
  EXPECT_EQ(l.lines[0].samples, 100u);
  EXPECT_DOUBLE_EQ(l.lines[0].share, 100.0 / 175);
  ASSERT_EQ(l.lines[0].reasons.size(), 3u);
  EXPECT_EQ(l.lines[0].reasons[0].label, "selected");
  EXPECT_DOUBLE_EQ(l.lines[0].reasons[1].share, 0.3);
  EXPECT_EQ(l.lines[1].reasons[0].label, "not selected");  // ties by label: 20 and 20
  EXPECT_EQ(l.lines[2].samples, 0u);
  EXPECT_EQ(l.over_lines.samples, 150u);
  EXPECT_EQ(l.over_lines.reasons[0].label, "selected");
  EXPECT_EQ(l.over_lines.leading_stall()->label, "dispatch stall");  // 30 against wait's 30
}

TEST(StallFigures, MergingAddsByStateNameAndPc) {
  StallFigures a = reading();
  StallFigures b;
  // The same states numbered otherwise, and one more.
  b.reasons = {stall_reason("smsp__pcsamp_warps_issue_stalled_wait"),
               stall_reason("smsp__pcsamp_warps_issue_stalled_selected"),
               stall_reason("smsp__pcsamp_warps_issue_stalled_barrier")};
  b.pcs.push_back({"k", 0x100, {5, 5, 5}});
  b.pcs.push_back({"k", 0x200, {0, 0, 7}});
  b.cupti_total = 17;
  b.readings = 1;
  a.merge(b);
  EXPECT_EQ(a.readings, 2);
  EXPECT_EQ(a.cupti_total, 17u);
  ASSERT_EQ(a.reasons.size(), 6u);
  EXPECT_EQ(a.reasons[5].label, "barrier");
  EXPECT_EQ(a.samples(a.pcs[0]), 115u);
  EXPECT_EQ(a.pcs[0].by_reason[0], 65u);  // selected
  EXPECT_EQ(a.pcs[0].by_reason[3], 15u);  // wait
  EXPECT_EQ(a.pcs.size(), 5u);
  EXPECT_EQ(a.pcs[4].by_reason[5], 7u);
}

TEST(StallTexts, TheOverlaysLine) {
  StallFigures f = reading();
  f.pcs = {{"k", 0x100, {800, 130, 60, 0, 70}}};  // dispatch stall 130 of 1000
  EXPECT_EQ(leading_stall_text(summarize(f)), "dispatch stall 13% of samples");
  f.pcs = {{"k", 0x100, {1000, 87, 0, 0, 0}}};  // dispatch 87 of 1087: 8.0%, under 10%
  EXPECT_EQ(leading_stall_text(summarize(f)), "dispatch stall 8.0% of samples");
  f.pcs = {{"k", 0x100, {10, 0, 0, 0, 5}}};
  EXPECT_EQ(leading_stall_text(summarize(f)), "no stalls sampled");
  f.pcs.clear();
  EXPECT_EQ(leading_stall_text(summarize(f)), "no samples");
}

TEST(StallTexts, TheSassViewsColumn) {
  const ListingStalls l = attribute_to_lines(reading(), "k", lines({0x100, 0x110, 0x120}));
  EXPECT_EQ(stall_column_text(l.lines[0]), " 57.1%  selected 60%, dispatch stall 30%");
  EXPECT_EQ(stall_column_text(l.lines[0], 3), " 57.1%  selected 60%, dispatch stall 30%, wait 10%");
  EXPECT_EQ(stall_column_text(l.lines[1], 1), " 28.6%  not selected 40%");
  EXPECT_EQ(stall_column_text(l.lines[2]), "     -");
}

TEST(StallTexts, KernelNamesAsAReaderKnowsThem) {
  EXPECT_EQ(kernel_name("_ZN2mp49_GLOBAL__N__8166d37f_16_render_kernel_cu_7fec4fa613render_"
                        "kernelINS_8variants7Fma4X16ELb0EEEvNS_12RenderLaunchE"),
            "render_kernel<Fma4X16, false>");
  EXPECT_EQ(kernel_name("not mangled"), "not mangled");
}

}  // namespace
}  // namespace mp
