#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/sass_loader.h"
#include "model/sass.h"
#include "model/variant_table.h"
#include "sass_fixture_text.h"

namespace mp::sass {
// Failures name the pipe instead of printing the enum's bytes.
void PrintTo(PipeClass c, std::ostream* os) {
  *os << pipe_class_name(c);
}
}  // namespace mp::sass

namespace mp {
namespace {

// Trimmed from cuobjdump -sass of an sm_90 build: the fma4-sin render loop.
const char* kSnippet = R"sass(
	code for sm_90
		Function : _ZN2mp13render_kernelINS_8variants7Fma4SinEEEvNS_12RenderLaunchE
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*01a0*/                   IMAD.MOV.U32 R10, RZ, RZ, RZ ;        /* 0x000fe200078e00ff */
        /*01b0*/                   FADD R13, R12, R12 ;                  /* 0x000fe20000000000 */
        /*01c0*/                   FFMA R11, R4, R4.reuse, -R5 ;
        /*01d0*/                   FMUL.RZ R14, R12.reuse, 0.15915493667125701904 ;
        /*01e0*/                   FFMA R4, R13, R4, R2 ;
        /*01f0*/                   FFMA R12, R12, R12, -R11 ;
        /*0200*/                   IMAD.MOV.U32 R11, RZ, RZ, R10 ;
        /*0210*/                   MUFU.SIN R13, R14 ;
        /*0220*/                   FMUL R15, R4, R4 ;
        /*0230*/                   VIADD R10, R10, 0x1 ;
        /*0240*/                   FFMA R15, R12, R12, R15 ;
        /*0250*/                   ISETP.LT.U32.AND P1, PT, R10, R17, PT ;
        /*0260*/                   FSETP.GTU.AND P0, PT, R15, 256, PT ;
        /*0270*/                   FADD R0, R13, R0 ;
        /*0280*/              @!P0 BRA P1, 0x1b0 ;
        /*0290*/                   EXIT ;
)sass";

TEST(Sass, ParsesInstructionsPredicatesAndBranchTargets) {
  const auto fns = sass::parse_cuobjdump(kSnippet);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].arch, "sm_90");
  ASSERT_EQ(fns[0].code.size(), 16u);
  const sass::Instruction& br = fns[0].code[14];
  EXPECT_EQ(br.opcode, "BRA");
  EXPECT_EQ(br.predicate, "@!P0");
  ASSERT_TRUE(br.branch_target);
  EXPECT_EQ(*br.branch_target, 0x1b0u);
  EXPECT_EQ(fns[0].code[3].base(), "FMUL");
  EXPECT_EQ(fns[0].code[3].opcode, "FMUL.RZ");
}

TEST(Sass, FindsTheStepLoopAndCountsPipes) {
  const auto fns = sass::parse_cuobjdump(kSnippet);
  const auto loop = sass::find_step_loop(fns[0]);
  ASSERT_TRUE(loop);
  EXPECT_EQ(fns[0].code[loop->first].address, 0x1b0u);
  EXPECT_EQ(fns[0].code[loop->last].address, 0x280u);
  const InstrMix m = sass::mix_of(fns[0], *loop);
  EXPECT_EQ(m.fma, 10);   // 4 step + FMUL.RZ + FADD acc + FMUL/FFMA escape + VIADD + IMAD.MOV
  EXPECT_EQ(m.alu, 2);    // ISETP, FSETP
  EXPECT_EQ(m.xu, 1);     // MUFU.SIN
  EXPECT_EQ(m.other, 1);  // BRA
}

TEST(Sass, LabelStyleBranchTargets) {
  const char* text = R"(
	code for sm_80
		Function : k
        /*0000*/                   MOV R0, RZ ;
.L_x_1:
        /*0010*/                   FFMA R0, R0, R0, R1 ;
        /*0020*/              @P0 BRA `(.L_x_1) ;
)";
  const auto fns = sass::parse_cuobjdump(text);
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_TRUE(fns[0].code[2].branch_target);
  EXPECT_EQ(*fns[0].code[2].branch_target, 0x10u);
  const auto loop = sass::find_step_loop(fns[0]);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->first, 1u);
}

TEST(Sass, Classification) {
  for (int arch : {70, 75, 80, 86, 89, 90, 120}) {
    EXPECT_EQ(sass::classify(arch, "FFMA"), sass::PipeClass::Fma) << arch;
    EXPECT_EQ(sass::classify(arch, "IMAD"), sass::PipeClass::Fma) << arch;
    EXPECT_EQ(sass::classify(arch, "FSETP"), sass::PipeClass::Alu) << arch;
    EXPECT_EQ(sass::classify(arch, "MUFU"), sass::PipeClass::Xu) << arch;
    EXPECT_EQ(sass::classify(arch, "DFMA"), sass::PipeClass::Fp64) << arch;
    EXPECT_EQ(sass::classify(arch, "LDG"), sass::PipeClass::Lsu) << arch;
    EXPECT_EQ(sass::classify(arch, "LDC"), sass::PipeClass::Other) << arch;
    EXPECT_EQ(sass::classify(arch, "BRA"), sass::PipeClass::Other) << arch;
    EXPECT_EQ(sass::classify(arch, "S2R"), sass::PipeClass::Other) << arch;
  }
  EXPECT_THROW(sass::classify(61, "FFMA"), std::out_of_range);  // no table before Volta
  EXPECT_EQ(sass::arch_number("sm_75"), 75);
  EXPECT_EQ(sass::arch_number("sm_90a"), 90);
  EXPECT_EQ(sass::arch_number("sm_120"), 120);
  EXPECT_EQ(sass::arch_number("compute_90"), 0);
  EXPECT_EQ(sass::arch_number(""), 0);
}

// The rows that differ by compute capability; src/model/sass.cpp gives each one's source.
TEST(Sass, PipeTablesDifferByComputeCapability) {
  using sass::PipeClass;
  // FP16x2 arithmetic: a pipe of its own on Volta and Turing, the pipe shared with FP64 and
  // tensor work on GA100 (neither modelled, but named), both FMA halves from GA10x on.
  for (const char* op : {"HADD2", "HMUL2", "HFMA2"}) {
    for (int arch : {70, 72, 75, 80}) {
      EXPECT_EQ(sass::table_pipe(arch, op), PipeClass::Other) << op << " sm_" << arch;
      EXPECT_EQ(sass::classify(arch, op), PipeClass::Other) << op << " sm_" << arch;
    }
    for (int arch : {86, 87, 89, 90, 100, 120})
      EXPECT_EQ(sass::classify(arch, op), PipeClass::Fma) << op << " sm_" << arch;
    for (int arch : {75, 80, 86, 89, 90})
      EXPECT_FALSE(sass::fma_heavy_only(arch, op)) << op << " sm_" << arch;
  }
  // fmaheavy and fmalite from GA10x on; before, one FMA pipe runs everything.
  for (int arch : {70, 75, 80}) {
    EXPECT_FALSE(sass::fma_heavy_only(arch, "IMAD")) << arch;
    EXPECT_FALSE(sass::fma_heavy_only(arch, "IDP")) << arch;
  }
  for (int arch : {86, 89, 90, 120}) {
    EXPECT_TRUE(sass::fma_heavy_only(arch, "IMAD")) << arch;
    EXPECT_TRUE(sass::fma_heavy_only(arch, "IDP")) << arch;
    EXPECT_FALSE(sass::fma_heavy_only(arch, "FFMA")) << arch;
  }
  // Each instruction set's own opcodes: Ampere's in no Turing table, Hopper's in no Ada one.
  for (const char* op : {"I2FP", "F2IP", "HMNMX2"}) {
    EXPECT_EQ(sass::table_pipe(75, op), std::nullopt) << op;
    for (int arch : {80, 86, 89, 90})
      EXPECT_EQ(sass::classify(arch, op), PipeClass::Alu) << op << " sm_" << arch;
  }
  EXPECT_EQ(sass::table_pipe(89, "VIADD"), std::nullopt);
  EXPECT_EQ(sass::table_pipe(89, "VIMNMX"), std::nullopt);
  EXPECT_FALSE(sass::fma_heavy_only(89, "VIADD"));
  EXPECT_EQ(sass::classify(90, "VIADD"), PipeClass::Fma);
  EXPECT_EQ(sass::classify(90, "VIMNMX"), PipeClass::Alu);
  EXPECT_TRUE(sass::fma_heavy_only(90, "VIADD"));
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

std::vector<sass::Function> fixture(const std::string& arch) {
  const std::string text = sass_fixture_text(arch);
  EXPECT_FALSE(text.empty()) << "no fixture for " << arch;
  return sass::parse_cuobjdump(text);
}

// Captured with cuobjdump -sass from the nvcc 13.0 build on the GPU machine. When a kernel
// change alters the loop, recapture (scripts/device/run.sh writes sass.txt) and update the
// declared mixes in cuda/host_device/variants.h together.
TEST(SassFixtures, LoopsMatchTheDeclaredMixesOnEveryArchitecture) {
  for (int arch : {75, 80, 86, 89, 90}) {
    const auto fns = fixture("sm_" + std::to_string(arch));
    ASSERT_FALSE(fns.empty()) << arch;
    for (const VariantInfo& v : all_variants())
      // Both instances have one step loop, a block of rows one per row (more would mean ptxas
      // changed the kernel's shape); the declared mix is that of the first, which the model reads.
      // The divergence view's kernel, which also writes per-pixel counts and per-tile
      // efficiencies, and the second row's loop may differ by a register copy.
      for (bool recording : {false, true}) {
        if (recording && v.perturbation) continue;  // one build: perturb_kernel<V, false>
        const sass::Function* f = sass::find_render_kernel(
            fns, sass::mangled_variant(v.type_name),
            recording ? sass::KernelBuild::Recording : sass::KernelBuild::Plain);
        ASSERT_NE(f, nullptr) << v.name << " sm_" << arch << " recording " << recording;
        const auto loops = sass::step_loop_candidates(*f);
        EXPECT_EQ(loops.size(), v.shape == variants::Shape::Rows ? 2u : 1u)
            << v.name << " sm_" << arch;
        ASSERT_TRUE(sass::find_step_loop(*f)) << v.name << " sm_" << arch;
        if (!recording && !loops.empty()) {
          EXPECT_EQ(sass::mix_of(*f, loops.front()), v.loop.at(arch)) << v.name << " sm_" << arch;
          for (const sass::Loop& loop : loops)
            EXPECT_NEAR(sass::mix_of(*f, loop).total(), v.loop.at(arch).total(), 1)
                << v.name << " sm_" << arch;
        }
      }
  }
}

// perturb's loop is its warps' steps in lockstep, the rebase left to the round's code, so its
// listing is what a step issues and it reads Z alone; perturb-x's and perturb-f's hold the
// exponent's paths, and the model says their bound is an upper one. Each of those reads Z in the
// step and Z_0 on a rebase (perturb-f also Z in double where Z is near 0).
TEST(SassFixtures, PerturbationLoopsReadOrbitPointsAndSayWhetherTheyHoldPaths) {
  for (int arch : {75, 80, 86, 89, 90}) {
    const auto fns = fixture("sm_" + std::to_string(arch));
    for (VariantId id :
         {VariantId::PerturbDouble, VariantId::PerturbExtended, VariantId::PerturbFloat}) {
      const VariantInfo& v = variant_info(id);
      const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant(v.type_name));
      ASSERT_NE(f, nullptr) << v.name << " sm_" << arch;
      const auto loop = sass::find_step_loop(*f);
      ASSERT_TRUE(loop) << v.name << " sm_" << arch;
      EXPECT_EQ(sass::mix_of(*f, *loop).lsu, id == VariantId::PerturbFloat    ? 3
                                             : id == VariantId::PerturbDouble ? 1
                                                                              : 2)
          << v.name << " sm_" << arch;
      if (id == VariantId::PerturbDouble)
        EXPECT_EQ(sass::branches_within(*f, *loop), 0u) << "sm_" << arch;
      else
        EXPECT_GT(sass::branches_within(*f, *loop), 0u) << "sm_" << arch;
    }
  }
}

// What takes an issue slot but none of the modelled pipes: control flow, constant loads, special
// registers and the uniform datapath. No pipe table names these.
const std::set<std::string> kNoModelledPipe = {
    // control flow
    "BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "BREAK", "BMOV", "WARPSYNC",
    "YIELD", "NOP",
    // constant loads
    "LDC",
    // special registers and the uniform datapath
    "S2R", "S2UR", "R2UR", "ULDC", "UMOV", "UIADD3", "UIMAD", "UISETP", "USEL", "ULEA", "USHF",
    "ULOP3", "UPOPC", "VOTEU"};

// An opcode new to the step loops must be given a pipe (or be named above): it cannot fall to
// Other unnoticed, as every opcode no table names does.
TEST(SassFixtures, EveryStepLoopOpcodeHasARowOrUsesNoModelledPipe) {
  for (int arch : {75, 80, 86, 89, 90}) {
    for (const std::string& op : kNoModelledPipe)
      EXPECT_EQ(sass::table_pipe(arch, op), std::nullopt)
          << op << " is in sm_" << arch << "'s table";
    std::set<std::string> ops;
    for (const sass::Function& f : fixture("sm_" + std::to_string(arch))) {
      if (f.name.find("render_kernel") == std::string::npos) continue;
      EXPECT_EQ(sass::arch_number(f.arch), arch) << f.name;  // the table mix_of takes
      for (const sass::Loop& l : sass::step_loop_candidates(f))
        for (std::size_t i = l.first; i <= l.last; ++i) ops.insert(f.code[i].base());
    }
    EXPECT_GE(ops.size(), 10u) << "step loops of sm_" << arch;
    for (const std::string& op : ops)
      EXPECT_TRUE(sass::table_pipe(arch, op) || kNoModelledPipe.count(op) > 0)
          << op << " is in a step loop of sm_" << arch
          << ": give it a row in that table (src/model/sass.cpp), or name it in kNoModelledPipe";
  }
}

// The seeds' lessons hold on every architecture we ship: grouping saves exactly one
// FMA-pipe instruction per step, and __sinf adds one MUFU and keeps the z chain as it was.
TEST(SassFixtures, EveryArchitectureShowsFiveVersusFourAndOneMufu) {
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}) {
    const auto fns = fixture(arch);
    auto float_ops = [&](VariantId id) {
      const sass::Function* f =
          sass::find_render_kernel(fns, sass::mangled_variant(variant_info(id).type_name));
      const auto loop = f ? sass::find_step_loop(*f) : std::nullopt;
      int n = 0;
      if (loop)
        for (std::size_t i = loop->first; i <= loop->last; ++i) {
          const std::string b = f->code[i].base();
          n += b == "FFMA" || b == "FADD" || b == "FMUL";
        }
      return n;
    };
    auto mix = [&](VariantId id) {
      const sass::Function* f =
          sass::find_render_kernel(fns, sass::mangled_variant(variant_info(id).type_name));
      EXPECT_NE(f, nullptr) << arch;
      const auto loop = f ? sass::find_step_loop(*f) : std::nullopt;
      EXPECT_TRUE(loop) << arch;
      return loop ? sass::mix_of(*f, *loop) : InstrMix{};
    };
    const InstrMix fma5 = mix(VariantId::Fma5), fma4 = mix(VariantId::Fma4),
                   sin = mix(VariantId::Fma4Sin);
    // ptxas moves register copies between IMAD.MOV (FMA pipe) and MOV (ALU) as it balances the
    // pipes, so count the float arithmetic itself, and the loops' lengths.
    EXPECT_EQ(float_ops(VariantId::Fma5) - float_ops(VariantId::Fma4), 1) << arch;
    EXPECT_EQ(fma5.total() - fma4.total(), 1) << arch;
    EXPECT_EQ(sin.xu - fma4.xu, 1) << arch;
    EXPECT_EQ(fma4.xu, 0) << arch;
    std::printf(
        "  %s loop: fma5 %g+%g+%g, fma4 %g+%g+%g, fma4-sin %g+%g+%g+%g XU (FMA+ALU+other)\n", arch,
        fma5.fma, fma5.alu, fma5.other, fma4.fma, fma4.alu, fma4.other, sin.fma, sin.alu, sin.other,
        sin.xu);
  }
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// The classifier against the hardware: ncu's sm__inst_executed_pipe_{fma,alu,xu,fp64} and
// sm__inst_executed per warp-step, measured at bench view C at 3840x2160 (where no lane idles
// and blocks rarely escape) for the very build whose sm_90 SASS is kept in sm_90.sass
// (render_kernel<V, false>, the kernel frames run once their view's tile costs are known); the
// run is in docs/measurements.md.
TEST(SassFixtures, Sm90PipesMatchHardwareCounters) {
  struct Measured {
    VariantId id;
    double fma, alu, xu, fp64, total;
  };
  // ncu (scripts/device/ncu-pipes.sh), per warp-issued step at bench view C.
  const Measured ncu[] = {
      {VariantId::Fma5, 8.001, 2.001, 0, 0, 11.007},
      {VariantId::Fma4, 7.001, 2.002, 0, 0, 10.007},
      {VariantId::Fma4Sin, 8.002, 3.001, 1.000, 0, 13.007},
      {VariantId::SinRatio, 11.001, 2.001, 2.000, 0, 16.007},
      {VariantId::Fma4Esc4, 5.251, 1.002, 0, 0, 7.008},
      {VariantId::Fma4Esc8, 4.626, 0.502, 0, 0, 5.508},
      {VariantId::Fp64, 1.001, 1.001, 0.001, 7.000, 10.007},
  };

  const auto fns = fixture("sm_90");
  for (const Measured& m : ncu) {
    const VariantInfo& v = variant_info(m.id);
    const sass::Function* f = sass::find_render_kernel(fns, sass::mangled_variant(v.type_name));
    ASSERT_NE(f, nullptr) << v.name;
    const auto loop = sass::find_step_loop(*f);
    ASSERT_TRUE(loop) << v.name;
    // The counters also see the per-tile code outside the loop, about 0.01 instructions per
    // step here; one instruction per trip is 1/8 per step at the most (fma4-esc8).
    const InstrMix per_step = sass::mix_of(*f, *loop) * (1.0 / v.steps_per_check);
    EXPECT_NEAR(per_step.fma, m.fma, 0.02) << v.name;
    EXPECT_NEAR(per_step.alu, m.alu, 0.02) << v.name;
    EXPECT_NEAR(per_step.xu, m.xu, 0.02) << v.name;
    EXPECT_NEAR(per_step.fp64, m.fp64, 0.02) << v.name;
    EXPECT_NEAR(per_step.total(), m.total, 0.02) << v.name;
  }
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// Malformed tool output: each of these once crashed the parser or threw from it.
const char* kMalformedHead = "\tcode for sm_90\n\t\tFunction : k\n";

TEST(SassMalformed, NonMonotonicAddressesMakeNoBackwardLoop) {
  // The first branch's target, 0x10, only comes after it: no loop, not [3, 1].
  const std::string text = std::string(kMalformedHead) + R"(
        /*0020*/                   FFMA R0, R0, R0, R1 ;
        /*0030*/              @P0 BRA 0x10 ;
        /*0040*/                   FADD R2, R2, R1 ;
        /*0010*/                   FFMA R3, R3, R3, R1 ;
        /*0050*/                   FFMA R4, R4, R4, R1 ;
        /*0060*/              @P1 BRA 0x50 ;
        /*0070*/                   EXIT ;
)";
  std::vector<sass::Function> fns;
  ASSERT_NO_THROW(fns = sass::parse_cuobjdump(text));
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_EQ(fns[0].code.size(), 7u);
  const auto loops = sass::step_loop_candidates(fns[0]);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].first, 4u);
  EXPECT_EQ(loops[0].last, 5u);
  EXPECT_EQ(sass::mix_of(fns[0], loops[0]).fma, 1);
}

TEST(SassMalformed, AVeryLongLineIsSkipped) {
  const std::string text = std::string(kMalformedHead) +
                           "        /*0000*/ FFMA R0, R0, R0, R1 ;\n"
                           "        /*0010*/ " +
                           std::string(250'000, 'R') + " ;\n" + "        /*0020*/ @P0 BRA 0x0 ;\n";
  std::vector<sass::Function> fns;
  ASSERT_NO_THROW(fns = sass::parse_cuobjdump(text));
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_EQ(fns[0].code.size(), 2u);
  EXPECT_EQ(fns[0].code[1].address, 0x20u);
  EXPECT_TRUE(sass::find_step_loop(fns[0]));
}

TEST(SassMalformed, APredicateWithoutAnOpcodeIsSkipped) {
  const std::string text = std::string(kMalformedHead) + R"(
        /*0000*/                   FFMA R0, R0, R0, R1 ;
        /*0010*/ @P0 ;
        /*0020*/              @P0 BRA 0x0 ;
)";
  std::vector<sass::Function> fns;
  ASSERT_NO_THROW(fns = sass::parse_cuobjdump(text));
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_EQ(fns[0].code.size(), 2u);
  EXPECT_EQ(fns[0].code[1].opcode, "BRA");
  EXPECT_EQ(fns[0].code[1].predicate, "@P0");
  EXPECT_TRUE(sass::find_step_loop(fns[0]));
}

TEST(SassMalformed, ABranchTargetThatDoesNotFitIsIgnored) {
  // Beyond 64 bits, and beyond 32 (which once wrapped to 0x0, a loop back to the start).
  const std::string text = std::string(kMalformedHead) + R"(
        /*0000*/                   FFMA R0, R0, R0, R1 ;
        /*0010*/              @P0 BRA 0x1ffffffffffffffffffff ;
        /*0020*/              @P1 BRA 0x100000000 ;
)";
  std::vector<sass::Function> fns;
  ASSERT_NO_THROW(fns = sass::parse_cuobjdump(text));
  ASSERT_EQ(fns.size(), 1u);
  ASSERT_EQ(fns[0].code.size(), 3u);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(fns[0].code[i].opcode, "BRA") << i;
    EXPECT_FALSE(fns[0].code[i].branch_target) << i;
  }
  EXPECT_TRUE(sass::step_loop_candidates(fns[0]).empty());
}

namespace fs = std::filesystem;

// A fake cuobjdump under $CUDA_PATH/bin that records its arguments and prints a given file, so
// the loader runs without a CUDA toolkit; the environment is restored afterwards.
class FakeCuobjdump {
 public:
  explicit FakeCuobjdump(const std::string& cuda_dir_name) {
    std::string pattern = (fs::temp_directory_path() / "mp_sass_test_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    const fs::path bin = dir_ / cuda_dir_name / "bin";
    fs::create_directories(bin);
    tool_ = bin / "cuobjdump";
    std::ofstream(tool_) << "#!/bin/sh\n"
                            "printf '%s\\n' \"$@\" > \"$MP_FAKE_ARGS\"\n"
                            "cat \"$MP_FAKE_SASS\"\n"
                            "echo 'cuobjdump info : on stderr' >&2\n";
    fs::permissions(tool_, fs::perms::owner_all);
    sass_ = dir_ / "sass.txt";
    std::ofstream{sass_};
    set("CUDA_PATH", (dir_ / cuda_dir_name).string());
    set("MP_FAKE_ARGS", args_file().string());
    set("MP_FAKE_SASS", sass_.string());
    set("MP_PWN", (dir_ / "pwned").string());
  }
  ~FakeCuobjdump() {
    for (const auto& [name, value] : saved_)
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& dir() const { return dir_; }
  const fs::path& tool() const { return tool_; }
  const fs::path& sass() const { return sass_; }
  fs::path args_file() const { return dir_ / "args"; }
  std::vector<std::string> args() const {
    std::ifstream in(args_file());
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
  // Set for the test, put back as it was after it.
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  fs::path dir_, tool_, sass_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(SassLoader, ApostrophesInThePathsReachCuobjdumpVerbatim) {
  const FakeCuobjdump fake("cuda's kit");
  ASSERT_EQ(find_cuobjdump(), fake.tool().string());
  const std::string binary = (fake.dir() / "it's" / "mandelpipe").string();
  LoadedSass s;
  ASSERT_NO_THROW(s = load_kernel_sass(binary, 90));
  EXPECT_EQ(fake.args(), (std::vector<std::string>{"-sass", "-arch", "sm_90", binary}));
  EXPECT_FALSE(s.ok());
  // stderr is read too, as it says why cuobjdump found nothing.
  EXPECT_NE(s.source.find("cuobjdump info : on stderr"), std::string::npos) << s.source;
}

TEST(SassLoader, ShellSyntaxInThePathIsNotRun) {
  const FakeCuobjdump fake("cuda");
  const std::string binary = (fake.dir() / "x'; touch $MP_PWN; echo '" / "mandelpipe").string();
  ASSERT_NO_THROW(load_kernel_sass(binary, 90));
  EXPECT_FALSE(fs::exists(fake.dir() / "pwned"));
  EXPECT_EQ(fake.args(), (std::vector<std::string>{"-sass", "-arch", "sm_90", binary}));
}

TEST(SassLoader, ReadsALargeOutputToTheEndAndLeavesNoChild) {
  const FakeCuobjdump fake("cuda");
  {
    // Megabytes before the kernels: they are found only if the pipe is read to its end.
    std::ofstream out(fake.sass());
    for (int i = 0; i < 100'000; ++i) out << "        /* filler line of cuobjdump's text */\n";
    out << sass_fixture_text("sm_90");
  }
  ASSERT_GT(fs::file_size(fake.sass()), 4'000'000u);
  const LoadedSass s = load_kernel_sass("mandelpipe", 90);
  EXPECT_TRUE(s.ok()) << s.source;
  EXPECT_EQ(s.loops.size(), all_variants().size());
  EXPECT_LE(waitpid(-1, nullptr, WNOHANG), 0) << "a child was left unreaped";
}

// A window closing stops a slow cuobjdump instead of waiting for it, and leaves no child.
TEST(SassLoader, ACancelStopsCuobjdumpAtOnce) {
  const FakeCuobjdump fake("cuda");
  std::ofstream(fake.tool()) << "#!/bin/sh\nexec sleep 30\n";
  std::atomic<bool> cancel{false};
  const auto t0 = std::chrono::steady_clock::now();
  auto load = std::async(std::launch::async, load_kernel_sass, "mandelpipe", 90, &cancel);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  cancel = true;
  const LoadedSass s = load.get();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.source.find("cancelled"), std::string::npos) << s.source;
  EXPECT_LT(seconds, 10.0) << "waited for the tool instead of stopping it";
  EXPECT_LE(waitpid(-1, nullptr, WNOHANG), 0) << "a child was left unreaped";
}

TEST(SassLoader, AnUnstartableCuobjdumpIsReported) {
  const FakeCuobjdump fake("cuda");
  fs::permissions(fake.tool(), fs::perms::owner_read | fs::perms::owner_write);
  const LoadedSass s = load_kernel_sass("mandelpipe", 90);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.source.rfind("could not run " + fake.tool().string() + ": ", 0), 0u) << s.source;
}

TEST(SassLoader, SassOfAnArchitectureWithNoPipeTableIsNoSass) {
  const FakeCuobjdump fake("cuda");
  // A render kernel with a step loop, but for sm_50, which no pipe table models.
  std::ofstream(fake.sass()) << "\tcode for sm_50\n\t\tFunction : _ZN2mp13render_kernelINS_"
                             << sass::mangled_variant(all_variants().front().type_name)
                             << "Lb0EEEvNS_12RenderLaunchE\n"
                                "        /*0000*/ FFMA R0, R0, R0, R1 ;\n"
                                "        /*0010*/ @P0 BRA 0x0 ;\n";
  LoadedSass s;
  ASSERT_NO_THROW(s = load_kernel_sass("mandelpipe", 90));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.loops_recording.empty());
  EXPECT_NE(s.source.find("could not read the SASS"), std::string::npos) << s.source;
}

// Runs load_kernel_sass_limited and says how long it took, checking that no child is left.
LoadedSass load_timed(const SassLimits& limits, double& seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  LoadedSass s = load_kernel_sass_limited("mandelpipe", 90, nullptr, limits);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(waitpid(-1, nullptr, WNOHANG), 0) << "a child was left unreaped";
  return s;
}

TEST(SassLoader, OutputPastTheCapIsNotRead) {
  // Endless output: read whole, it would take all the memory there is.
  const FakeCuobjdump fake("cuda");
  std::ofstream(fake.tool()) << "#!/bin/sh\nexec yes 'filler line of no SASS'\n";
  double seconds = 0;
  const LoadedSass s = load_timed({1 << 20, 30}, seconds);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.source.find("stopped past 1 MiB of output"), std::string::npos) << s.source;
  EXPECT_LT(seconds, 10.0);
}

TEST(SassLoader, AHangingCuobjdumpIsStoppedAtTheTimeLimit) {
  const FakeCuobjdump fake("cuda");
  std::ofstream(fake.tool()) << "#!/bin/sh\nexec sleep 30\n";
  double seconds = 0;
  const LoadedSass s = load_timed({1 << 20, 0.5}, seconds);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.source.find("stopped after 0.5 s"), std::string::npos) << s.source;
  EXPECT_LT(seconds, 10.0);
}

TEST(SassLoader, ARelativePathEntryIsNeverSearched) {
  // PATH's "cuda/bin" names whatever the working folder holds: the absolute entry after it wins.
  FakeCuobjdump fake("cuda");
  fake.set("CUDA_PATH", (fake.dir() / "none").string());
  fake.set("PATH", "cuda/bin:.:" + fake.tool().parent_path().string());
  const fs::path was = fs::current_path();
  fs::current_path(fake.dir());
  const std::string found = find_cuobjdump();
  fs::current_path(was);
  std::error_code ec;
  const std::string expected = fs::is_regular_file("/usr/local/cuda/bin/cuobjdump", ec)
                                   ? "/usr/local/cuda/bin/cuobjdump"
                                   : fake.tool().string();
  EXPECT_EQ(found, expected);
}

// Without cuobjdump the SASS view and the model read the SASS the project captured from its own
// build of the architecture (compiled into the program), and say so and what brings cuobjdump.
TEST(SassLoader, WithoutCuobjdumpTheCapturedSassIsShown) {
  for (const int arch : {75, 80, 86, 89, 90}) {
    const std::string name = "sm_" + std::to_string(arch);
    const LoadedSass s = captured_sass(name, cuobjdump_missing());
    ASSERT_TRUE(s.ok()) << name << ": " << s.source;
    EXPECT_TRUE(s.captured);
    EXPECT_EQ(s.arch, name);
    // The listings are those of the captured fixture, as the fixtures' own test reads them.
    for (const VariantInfo& v : all_variants()) {
      const LoopListing* l = s.loop(v.id, sass::KernelBuild::Plain);
      ASSERT_TRUE(l) << name << " " << v.name;
      EXPECT_EQ(l->arch, arch);
      EXPECT_FALSE(l->code.empty());
    }
    EXPECT_NE(s.source.find("captured from its " + name + " build"), std::string::npos) << s.source;
    EXPECT_NE(s.source.find("cuobjdump not found"), std::string::npos) << s.source;
    EXPECT_NE(s.source.find("apt-get install cuda-cuobjdump-"), std::string::npos) << s.source;
  }
  EXPECT_FALSE(captured_sass("sm_100", "why").ok()) << "none captured: nothing shown";
  // The loader falls back to it where no cuobjdump is found at all.
  if (!find_cuobjdump().empty()) GTEST_SKIP() << "cuobjdump is installed: the loader reads it";
  const LoadedSass s = load_kernel_sass(self_executable(), 90);
  EXPECT_TRUE(s.captured);
  EXPECT_TRUE(s.ok()) << s.source;
}

}  // namespace
}  // namespace mp
