// perturb-x's and perturb-f's whole-kernel model (model/rare_paths.h, docs/model.md "perturb-x and
// perturb-f"): the cut of a step loop into its common path and the rare paths its counting code
// marks, the model's arithmetic on a frame worked out by hand, the walk of a path where Z is 0,
// and the CPU's count of the warps' visits.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernel_params.h"
#include "model/ordinary_path.h"
#include "model/rare_paths.h"
#include "model/whole_kernel.h"
#include "render/perturbation_cpu.h"
#include "render/perturbation_visits.h"

namespace mp {
namespace {

// perturb-x's every-step kernel cut down to one of each part, its counters at 0x100 on (4 bytes
// a path, kRarePaths of them, then the whole-warp ones): a warp's start 0x0..0x10 and EXIT at
// 0x300; the tile loop 0x20..0x2f0, whose take runs to its branch out at 0x50, the set-up
// 0x60..0x90 (reading the grid's offsets dc0x.e and dc0y.e at 0x2d0 and 0x2e0), the step loop
// 0xa0..0x2c0 and the finish 0x2d0..0x2f0. In the step loop: d = 0 (0xc0) goes to the first
// step 0x1a0..0x1e0 (5, two counters), Z near 0 (0xe0) to 0x160..0x190 (4, two counters), the
// mantissas out of their window (0x110) to 0x120..0x150 (4); all meet at 0x1f0; the escape exit
// at 0x240, the rebase test (two registers: either way) at 0x260 around 0x270..0x290 (3).
constexpr const char* kKernel = R"(
	code for sm_90
		Function : _ZN2mp14perturb_kernelINS_8variants15PerturbExtendedELb0EEEvv
        /*0000*/                   S2R R1, SR_TID.X ;
        /*0010*/                   LOP3.LUT R1, R1, 0x1f, RZ, 0xc0, !PT ;
        /*0020*/                   ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR10][R2.64], R5 ;
        /*0030*/                   SHFL.IDX PT, R0, R3, RZ, 0x1f ;
        /*0040*/                   ISETP.GE.U32.AND P1, PT, R0, c[0x0][0x330], PT ;
        /*0050*/               @P1 BRA 0x300 ;
        /*0060*/                   ULDC UR6, c[0x0][0x2d0] ;
        /*0070*/                   ULDC UR7, c[0x0][0x2e0] ;
        /*0080*/                   IMAD.MOV.U32 R0, RZ, RZ, -0x20000000 ;
        /*0090*/                   CS2R R4, SRZ ;
        /*00a0*/                   ISETP.NE.AND P0, PT, R0, -0x20000000, PT ;
        /*00b0*/                   BSSY B2, 0x1f0 ;
        /*00c0*/              @!P0 BRA 0x1a0 ;
        /*00d0*/                   DSETP.GEU.AND P1, PT, |R6|, 1.211445438634777304e-268, PT ;
        /*00e0*/              @!P1 BRA 0x160 ;
        /*00f0*/                   DFMA R4, R4, R6, R8 ;
        /*0100*/                   DSETP.GE.AND P2, PT, |R4|, 1.84467440737095516160e+19, PT ;
        /*0110*/              @!P2 BRA 0x1f0 ;
        /*0120*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x10c] ;
        /*0130*/                   DMUL R4, R4, R10 ;
        /*0140*/                   IADD3 R0, R0, 0x40, RZ ;
        /*0150*/                   BRA 0x1f0 ;
        /*0160*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x104] ;
        /*0170*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x124] ;
        /*0180*/                   DMUL R4, R4, R4 ;
        /*0190*/                   BRA 0x1f0 ;
        /*01a0*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x100] ;
        /*01b0*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x120] ;
        /*01c0*/                   MOV R4, R12 ;
        /*01d0*/                   MOV R5, R13 ;
        /*01e0*/                   IADD3 R0, R14, 0x0, RZ ;
        /*01f0*/                   BSYNC B2 ;
        /*0200*/                   LDG.E.128 R8, desc[UR6][R14.64] ;
        /*0210*/                   DADD R16, R8, R4 ;
        /*0220*/                   DMUL R18, R4, R4 ;
        /*0230*/                   DSETP.GT.AND P3, PT, R16, 256, PT ;
        /*0240*/               @P3 BRA 0x2d0 ;
        /*0250*/                   DSETP.GEU.AND P4, PT, R16, R18, PT ;
        /*0260*/               @P4 BRA 0x2a0 ;
        /*0270*/                   ATOMS.POPC.INC.32 RZ, [R5+UR4+0x110] ;
        /*0280*/                   MOV R4, R16 ;
        /*0290*/                   IMAD.MOV.U32 R0, RZ, RZ, RZ ;
        /*02a0*/                   IADD3 R20, R20, 0x1, RZ ;
        /*02b0*/                   ISETP.LT.U32.AND P5, PT, R20, c[0x0][0x308], PT ;
        /*02c0*/               @P5 BRA 0xa0 ;
        /*02d0*/                   MUFU.LG2 R22, R16 ;
        /*02e0*/                   STG.E desc[UR10][R24.64], R22 ;
        /*02f0*/                   BRA 0x20 ;
        /*0300*/                   EXIT ;
        /*0310*/                   BRA 0x310;
)";

sass::Function kernel() {
  return sass::parse_cuobjdump(kKernel).at(0);
}

std::size_t at(const sass::Function& f, unsigned address) {
  for (std::size_t i = 0; i < f.code.size(); ++i)
    if (f.code[i].address == address) return i;
  return f.code.size();
}

std::vector<unsigned> addresses(const sass::Function& f, const std::vector<std::size_t>& at) {
  std::vector<unsigned> a;
  for (std::size_t i : at) a.push_back(f.code[i].address);
  return a;
}

TEST(RarePaths, CutsTheLoopByItsCountingCode) {
  const sass::Function f = kernel();
  const RarePaths r = rare_paths(f, at(f, 0xa0), at(f, 0x2c0));
  ASSERT_TRUE(r.unusable.empty()) << r.unusable;
  EXPECT_EQ(addresses(f, r.common),
            (std::vector<unsigned>{0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0, 0x100, 0x110, 0x1f0, 0x200,
                                   0x210, 0x220, 0x230, 0x240}));
  EXPECT_EQ(addresses(f, r.went_on), (std::vector<unsigned>{0x250, 0x260, 0x2a0, 0x2b0, 0x2c0}));
  EXPECT_EQ(addresses(f, r.region[kFirstStep]),
            (std::vector<unsigned>{0x1a0, 0x1b0, 0x1c0, 0x1d0, 0x1e0}));
  EXPECT_EQ(addresses(f, r.region[kNearStep]), (std::vector<unsigned>{0x160, 0x170, 0x180, 0x190}));
  EXPECT_EQ(addresses(f, r.region[kRescale]), (std::vector<unsigned>{0x120, 0x130, 0x140, 0x150}));
  EXPECT_EQ(addresses(f, r.region[kRebase]), (std::vector<unsigned>{0x270, 0x280, 0x290}));
  EXPECT_TRUE(r.region[kNearTest].empty());
  // A whole-warp first step skips the test of Z and the common step; a whole-warp step near Z
  // = 0 skips the common step; the others go back where the common path's branch went.
  EXPECT_EQ(addresses(f, r.instead[kFirstStep]),
            (std::vector<unsigned>{0xd0, 0xe0, 0xf0, 0x100, 0x110}));
  EXPECT_EQ(addresses(f, r.instead[kNearStep]), (std::vector<unsigned>{0xf0, 0x100, 0x110}));
  EXPECT_TRUE(r.instead[kRescale].empty());
  EXPECT_TRUE(r.instead[kRebase].empty());
  EXPECT_TRUE(r.unwalked.empty());
}

// One 16x2 tile whose 32 pixels all escape at step 10, the kernel's counts of its rare paths
// given: a first step (the whole warp), two steps near Z = 0 (one of the whole warp), one
// rescale, three rebases. By hand: the step loop 14 x 10 trips + 5 x 9 that went on (the last
// trip leaves at the escape) + 5 + 4 x 2 + 4 + 3 x 3 - 5 (the first step's whole-warp visit
// skips the 5 of the test of Z and the common step) - 3 (the whole-warp step near Z = 0 skips
// the common step) = 203; the take 4 for the tile and each of the block's 8 warps, the set-up 4,
// the finish 3, a warp's start and end 3 x 8: 203 + 36 + 4 + 3 + 24 = 270. Before, perturb-x's
// kernel was not modelled at all.
TEST(RarePaths, ModelsAFrameWorkedOutByHand) {
  const sass::Function f = kernel();
  const KernelCut cut = cut_kernel(f, VariantId::PerturbExtended);
  ASSERT_TRUE(cut.unusable.empty()) << cut.unusable;
  FrameShape shape;
  shape.shape = variants::Shape::Pixel;
  shape.width = 16;
  shape.height = 2;
  shape.max_iter = 100;
  shape.sm_count = 1;
  shape.warps_per_sm = 64;
  shape.zero_offsets = 3;
  shape.rare_counted = true;
  shape.rare[kFirstStep] = 1;
  shape.rare_whole[kFirstStep] = 1;
  shape.rare[kNearStep] = 2;
  shape.rare_whole[kNearStep] = 1;
  shape.rare[kRescale] = 1;
  shape.rare[kRebase] = 3;
  const std::vector<unsigned> counts(32, 10);
  const WholeKernel w =
      whole_kernel_of_frame(VariantId::PerturbExtended, cut, shape, counts.data(), 10);
  ASSERT_TRUE(w.ok()) << w.unusable;
  EXPECT_DOUBLE_EQ(w.part(KernelPart::StepLoop).mix.total(), 203);
  EXPECT_DOUBLE_EQ(w.instructions(), 270);
  // Without the kernel's counts (the CPU path, a frame that read the tables) it says why.
  shape.rare_counted = false;
  const WholeKernel none =
      whole_kernel_of_frame(VariantId::PerturbExtended, cut, shape, counts.data(), 10);
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.unusable.find("were not counted"), std::string::npos) << none.unusable;
}

// A listing without counting code in its loop (a build from before it) is not cut, and says so.
TEST(RarePaths, ABuildWithoutCountingCodeSaysSo) {
  std::string text = kKernel;
  for (std::size_t p; (p = text.find("ATOMS")) != std::string::npos;)
    text.replace(p, text.find(']', p) + 1 - p, "NOP");
  const sass::Function f = sass::parse_cuobjdump(text).at(0);
  const KernelCut cut = cut_kernel(f, VariantId::PerturbExtended);
  EXPECT_NE(cut.unusable.find("no counting code"), std::string::npos) << cut.unusable;
}

// Where the reference's Z is 0 (Z_0 after a rebase, a nucleus of period 1) the walk of a path
// reads its loads as 0: 2Z is 0, and the normalisation of a zero skips its 3 instructions; with
// ordinary numbers it runs them. Both walks take the branch on `@P0 BRA P1` that P0 settles.
TEST(RarePaths, WalksAPathWhereZIsZero) {
  const sass::Function f = sass::parse_cuobjdump(R"(
	code for sm_90
		Function : near_zero
        /*0000*/                   LDG.E.128 R12, desc[UR10][R14.64] ;
        /*0010*/                   DADD R12, R12, R12 ;
        /*0020*/                   DADD R20, -RZ, -R12 ;
        /*0030*/                   DSETP.GEU.AND P0, PT, R12, RZ, PT ;
        /*0040*/                   FSEL R20, R20, R12, !P0 ;
        /*0050*/                   FSEL R21, R21, R13, !P0 ;
        /*0060*/                   DSETP.NEU.AND P0, PT, R20, RZ, PT ;
        /*0070*/              @!P0 BRA 0xb0 ;
        /*0080*/                   SHF.R.U32.HI R5, RZ, 0x14, R21 ;
        /*0090*/                   LOP3.LUT R5, R5, 0x7ff, RZ, 0xc0, !PT ;
        /*00a0*/                   IADD3 R5, R5, -0x3ff, RZ ;
        /*00b0*/                   ISETP.GT.AND P1, PT, R5, 0x3ff, PT ;
        /*00c0*/               @P1 BRA P2, 0xf0 ;
        /*00d0*/                   DMUL R4, R4, R6 ;
        /*00e0*/                   EXIT ;
        /*00f0*/                   EXIT ;
)")
                               .at(0);
  const std::vector<bool> none(f.code.size(), false);
  const auto count = [](const StretchWalk& w) {
    return std::count(w.reached.begin(), w.reached.end(), true);
  };
  const StretchWalk ordinary = walk_stretch(f, 0, f.code.size(), 0, none, none);
  const StretchWalk zero = walk_stretch(f, 0, f.code.size(), 0, none, none, true);
  ASSERT_TRUE(ordinary.ok && zero.ok);
  EXPECT_EQ(count(ordinary), 15);
  EXPECT_EQ(count(zero), 12);
  EXPECT_FALSE(ordinary.reached[15]);
}

// The CPU's count of the warps' visits: every warp's first trip is a step from d = 0 that all 32
// lanes take, and the tallies of steps are the CPU reference's.
TEST(RarePaths, TheCpuCountsEachWarpsFirstStepWhole) {
  DeepGrid g;
  g.width = 32;
  g.height = 4;
  g.dc0x = to_floatexp(-0.5);
  g.dc0y = to_floatexp(0.3);
  g.spacing = to_floatexp(0.01);
  std::vector<RefPoint> z(201);
  for (auto& p : z) p = {0, 0};  // the reference at c = 0: Z stays 0
  const RefOrbitView ref(z.data(), static_cast<unsigned>(z.size()));
  std::vector<unsigned> counts(32 * 4);
  const PerturbTally t = rare_visits_cpu(DeltaFormat::Extended, g, ref, 200, counts.data(), 2);
  EXPECT_TRUE(t.rare_counted);
  EXPECT_EQ(t.rare[kFirstStep], 4u);
  EXPECT_EQ(t.rare_whole[kFirstStep], 4u);
  std::vector<float> out(32 * 4 * kFloatsPerPixel);
  std::vector<unsigned> reference(32 * 4);
  const PerturbStats s = render_perturbation_cpu(DeltaFormat::Extended, g, whole_image(g), ref,
                                                 BlaTables{}, 200, out.data(), reference.data());
  EXPECT_EQ(t.pixel_iters, s.pixel_iters);
  EXPECT_EQ(counts, reference);
  unsigned long long slowest = 0;
  for (int tile = 0; tile < 4; ++tile) {
    unsigned m = 0;
    for (int k = 0; k < 32; ++k)
      m = std::max(m, counts[(tile / 2 * 2 + k / 16) * 32 + tile % 2 * 16 + k % 16]);
    slowest += m;
  }
  EXPECT_EQ(t.warp_iterated, slowest);
}

}  // namespace
}  // namespace mp
