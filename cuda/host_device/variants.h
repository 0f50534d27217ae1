// The step variants: how one Mandelbrot iteration z <- z^2 + c is written, and what the
// compiler makes of it. Each variant is a struct holding its device function and, beside
// it, the instruction mix we expect per step in the SASS of the render loop (checked against
// cuobjdump by tests/sass_mix_test.cpp on the GPU machine and against the captured SASS in
// tests/fixtures/sass everywhere). `arch` is 10 x compute capability (sm_90: 90).
//
// To add a variant: write a struct like the ones below and add it to MANDELPIPE_VARIANTS.
#pragma once

#include <stdexcept>

#include "df64.h"
#include "hd.h"
#include "instr_mix.h"
#include "perturbation.h"

namespace mp::variants {

// What nvcc 13 makes of a variant's whole loop body (K steps and one escape test), per
// architecture: sm_75, sm_80, sm_86, sm_89, sm_90; newer chips run sm_90's PTX and are read
// as sm_90. Beside the step it holds the escape test (FMUL y*y + FFMA x*x+yy, FSETP), the
// counter (VIADD on the FMA pipe or IADD3 on the ALU pipe: ptxas balances the pipes
// differently per kernel), register copies (IMAD.MOV on the FMA pipe, MOV on the ALU pipe)
// and the backward BRA (an issue slot, no modelled pipe). tests/fixtures/sass holds the SASS.
struct LoopMixes {
  InstrMix sm75, sm80, sm86, sm89, sm90;
  constexpr InstrMix at(int arch) const {
    return arch >= 90 ? sm90 : arch >= 89 ? sm89 : arch >= 86 ? sm86 : arch >= 80 ? sm80 : sm75;
  }
};

// Where a variant's warps get their pixels (render_kernel.cu). Queue: as many warps as fit on the
// GPU, each taking 16x2-pixel tiles from a queue ordered by the last frame's tile costs. Grid: a
// plain launch, one warp per tile, nothing between the kernel and its pixels. Refill: one warp per
// 16x16 block whose lanes each take the block's next pixel when theirs is done. Rows: a plain
// launch whose blocks are each 256 pixels of a pair of rows, so that c's imaginary part is the
// same in every lane of a block (render_kernel.cu says why that matters).
// Pixel: a thread a pixel in 16x16 blocks, the perturbation kernels' (cuda/perturbation_kernel.cu).
enum class Shape { Queue, Grid, Refill, Rows, Pixel };

// Defaults every variant starts from: float arithmetic, the escape test after every step, no
// colouring term (kAux: the step adds a term to `acc` each time; the pixel's aux is its mean),
// the queue, and the register cap of its kernel on sm_90 (kRegCap: ptxas's register choice moves
// a bound by many points there; at most 32 keeps eight blocks on an SM; docs/measurements.md has
// the caps tried). kPaired: blocks of kStepsPerCheck steps run two per loop trip (pixel.h).
// kExactFma: the step and the escape test are written as the fused operations the GPU runs, so
// the CPU reference computes the same bits, not only the same instructions' worth. kCycles: paired
// blocks also look for an orbit that repeats exactly and stop it there as inside (pixel.h).
// Paired variants' blocks may grow with an orbit's age (pixel.h, iterate_orbit): blocks of
// kFirstStepsPerCheck for its first kFirstUntil steps, then of kStepsPerCheck, and of
// kLongStepsPerCheck once it has run kLongAfter. An orbit that leaves at once pays a short block
// and a short replay; a long one pays its escape tests rarely.
struct FloatVariant {
  using Real = float;
  static constexpr int kStepsPerCheck = 1;
  static constexpr bool kPaired = false;
  static constexpr int kFirstStepsPerCheck = 0;
  static constexpr unsigned kFirstUntil = 0;
  static constexpr int kLongStepsPerCheck = 0;
  static constexpr unsigned kLongAfter = 0;
  static constexpr bool kExactFma = false;
  static constexpr bool kAux = false;
  static constexpr bool kCycles = false;
  static constexpr Shape kShape = Shape::Queue;
  static constexpr int kRegCap = 32;
  static constexpr bool kPerturbation = false;
};

// z = (x*x - y*y + cx, 2xy + cy) as written: nvcc emits FMUL, FFMA, FADD for the real part
// and FADD, FFMA for the imaginary part - five FMA-pipe instructions.
struct Fma5 : FloatVariant {
  static constexpr int kRegCap = 29;
  static constexpr const char* kName = "fma5";
  static constexpr const char* kSummary = "naive x*x - y*y + cx: 5 FMA-pipe instructions per step";
  static constexpr InstrMix step_mix(int) { return {5, 0, 0, 0, 0}; }
  static constexpr LoopMixes kLoop{
      {7, 3, 0, 0, 1}, {7, 3, 0, 0, 1}, {7, 3, 0, 0, 1}, {7, 3, 0, 0, 1}, {8, 2, 0, 0, 1}};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& /*acc*/) {
    const float nx = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = nx;
  }
};

// Grouping the constant with y*y lets both products become FFMAs: x*x - (y*y - cx) is
// FFMA(y,y,-cx) then FFMA(x,x,-t): four FMA-pipe instructions per step.
struct Fma4 : FloatVariant {
  static constexpr int kRegCap = 29;
  static constexpr const char* kName = "fma4";
  static constexpr const char* kSummary =
      "grouped x*x - (y*y - cx): 4 FMA-pipe instructions per step";
  static constexpr InstrMix step_mix(int) { return {4, 0, 0, 0, 0}; }
  static constexpr LoopMixes kLoop{
      {6, 3, 0, 0, 1}, {6, 3, 0, 0, 1}, {6, 3, 0, 0, 1}, {6, 3, 0, 0, 1}, {7, 2, 0, 0, 1}};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& /*acc*/) {
    const float nx = x * x - (y * y - cx);
    y = 2.0f * x * y + cy;
    x = nx;
  }
};

// fma4 plus one __sinf per step on a value off the z chain (its sum becomes a stripe
// colouring term, so the compiler must keep it). __sinf is FMUL.RZ + MUFU.SIN: the XU pipe
// works beside the FMA pipe instead of after it.
struct Fma4Sin : FloatVariant {
  static constexpr bool kAux = true;
  static constexpr const char* kName = "fma4-sin";
  static constexpr const char* kSummary =
      "fma4 + one __sinf per step on an independent value (XU pipe beside FMA)";
  // FMA pipe: fma4's 4 + FMUL.RZ (the 1/2pi scaling of __sinf) + FADD into acc; XU: MUFU.SIN.
  static constexpr InstrMix step_mix(int) { return {6, 0, 1, 0, 0}; }
  static constexpr LoopMixes kLoop{
      {8, 3, 1, 0, 1}, {9, 3, 1, 0, 1}, {8, 3, 1, 0, 1}, {8, 3, 1, 0, 1}, {8, 3, 1, 0, 1}};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& acc) {
    acc += fast_sin(x);
    Fma4::step(x, y, cx, cy, acc);
  }
};

// Sines per step that keep the XU as busy as the FMA pipe (or issue). The model, with fma4's
// loop: one MUFU per 8 clocks per SM sub-partition against about (7 + 2 per sine) FMA-pipe and
// (10 + 3 per sine) issued instructions; sm_86+ issue an FFMA every clock: balance at 2
// sines; sm_75/sm_80 need 2 clocks per FFMA: balance between 3 and 4, so 4 (seed 000's "4:1").
// Measured on sm_90 with `mandelpipe bench --sin-sweep` (docs/measurements.md): 2 keeps the
// less busy of XU and issue busiest, as the model predicts. sm_75/sm_80 and sm_86/sm_89 keep
// the model's choice (not measured).
MP_HD_CONSTEXPR int sines_per_step(int arch) {
  return arch < 86 ? 4 : 2;
}

// fma4 with sines_per_step() __sinf per step, on the four values a step has at hand (old and
// new x and y), so neither the FMA pipe nor the XU idles.
// The sweep (`bench --sin-sweep`) tries 1..kMaxSweepSines: the four values a step has.
inline constexpr int kMaxSweepSines = 4;
template <int M>
struct SinBalance : FloatVariant {
  static constexpr bool kAux = true;
  static constexpr InstrMix step_mix(int) { return {4 + 2.0 * M, 0, double(M), 0, 0}; }
  MP_HD static void step(float& x, float& y, float cx, float cy, float& acc) {
    acc += fast_sin(x);
    if (M > 1) acc += fast_sin(y);
    Fma4::step(x, y, cx, cy, acc);
    if (M > 2) acc += fast_sin(x);
    if (M > 3) acc += fast_sin(y);
  }
};
struct SinRatio : FloatVariant {
  static constexpr bool kAux = true;
  static constexpr const char* kName = "sin-ratio";
  static constexpr const char* kSummary =
      "fma4 + as many __sinf per step as balance XU against FMA/issue on its architecture";
  static constexpr InstrMix step_mix(int arch) {
    const int m = sines_per_step(arch);
    return {4 + 2.0 * m, 0, double(m), 0, 0};
  }
  static constexpr LoopMixes kLoop{
      {14, 4, 4, 0, 1}, {15, 3, 4, 0, 1}, {10, 3, 2, 0, 1}, {10, 3, 2, 0, 1}, {11, 2, 2, 0, 1}};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& acc) {
#ifdef __CUDA_ARCH__
    SinBalance<sines_per_step(__CUDA_ARCH__ / 10)>::step(x, y, cx, cy, acc);
#else
    SinBalance<sines_per_step(90)>::step(x, y, cx, cy, acc);  // the CPU mirrors sm_90
#endif
  }
};

// fma4's step with the escape test only every K steps: the test and its branch are paid once
// per K steps. A block that escaped is undone and replayed one step at a time (pixel.h), so
// the counts are exactly fma4's.
template <int K>
struct EscapeEvery : FloatVariant {
  static constexpr int kStepsPerCheck = K;
  static constexpr InstrMix step_mix(int arch) { return Fma4::step_mix(arch); }
  MP_HD static void step(float& x, float& y, float cx, float cy, float& acc) {
    Fma4::step(x, y, cx, cy, acc);
  }
};
// Their loops also save z and n for the back-off (register copies) and test the trip count
// at the top (a second branch); on sm_90 ptxas also reloads max_iter from the constant bank
// every trip (an LDC: an issue slot, no modelled pipe).
struct Fma4Esc4 : EscapeEvery<4> {
  static constexpr int kRegCap = 31;
  static constexpr const char* kName = "fma4-esc4";
  static constexpr const char* kSummary = "fma4, escape test every 4 steps with exact back-off";
  static constexpr LoopMixes kLoop{
      {21, 4, 0, 0, 2}, {21, 4, 0, 0, 2}, {21, 4, 0, 0, 2}, {21, 4, 0, 0, 2}, {21, 4, 0, 0, 3}};
};
struct Fma4Esc8 : EscapeEvery<8> {
  static constexpr const char* kName = "fma4-esc8";
  static constexpr const char* kSummary = "fma4, escape test every 8 steps with exact back-off";
  static constexpr LoopMixes kLoop{
      {37, 4, 0, 0, 2}, {36, 5, 0, 0, 2}, {36, 5, 0, 0, 2}, {36, 5, 0, 0, 2}, {37, 4, 0, 0, 3}};
};

// fma4's step as the GPU runs it, FFMA(y, y, -cx), FFMA(x, x, -t), FADD x + x, FFMA(2x, y, cy),
// spelt out so that the CPU reference rounds the same way (kExactFma).
struct ExactFma4 : FloatVariant {
  static constexpr bool kExactFma = true;
  static constexpr InstrMix step_mix(int) { return {4, 0, 0, 0, 0}; }
  MP_HD static void step(float& x, float& y, float cx, float cy, float& /*acc*/) {
    const float nx = fma_exact(x, x, -fma_exact(y, y, -cx));
    y = fma_exact(x + x, y, cy);
    x = nx;
  }
};

// The variant at the limit: fma4's step in blocks of 16, two blocks per loop trip, so the escape
// test, the trip count and the branch are paid once per 16 steps and nothing is copied to undo a
// block (pixel.h: iterate_paired); a plain launch, so a frame is the pixels' work and no more.
struct Fma4X16 : ExactFma4 {
  static constexpr int kStepsPerCheck = 16;
  static constexpr bool kPaired = true;
  static constexpr Shape kShape = Shape::Grid;
  static constexpr const char* kName = "fma4-x16";
  static constexpr const char* kSummary =
      "fma4 in paired 16-step blocks, plain launch: as near 4 issue slots per step as it gets";
  // Per trip (32 steps): the steps' 128 FFMA/FADD, two escape tests (FMUL, FFMA, FSETP, BRA), the
  // pair count (IADD3, ISETP, BRA) and what ptxas adds to set the exits up.
  static constexpr LoopMixes kLoop{{132, 10, 0, 0, 3},
                                   {132, 9, 0, 0, 4},
                                   {132, 10, 0, 0, 3},
                                   {132, 10, 0, 0, 3},
                                   {133, 9, 0, 0, 3}};
};

// fma4-x16's step in a kernel whose blocks are each 256 pixels of a pair of rows, so that c's
// imaginary part is the block's, read from constant memory once a row. On sm_90 fma4-x16's loop
// stalls at dispatch and leaves issue slots empty; this one's does not (ncu). The stall follows
// where ptxas puts the step's registers, which the row table changes (docs/measurements.md has the
// probes; the cause is likely register-file read conflicts, whose rule sm_90 does not document):
// the SASS fixtures pin the loop, the bench measures it. Blocks of 4 steps for an orbit's first 32,
// of 16 up to 512, then of 32.
struct Fma4Rows : Fma4X16 {
  static constexpr int kFirstStepsPerCheck = 4;
  static constexpr unsigned kFirstUntil = 32;
  static constexpr int kLongStepsPerCheck = 32;
  static constexpr unsigned kLongAfter = 512;
  static constexpr Shape kShape = Shape::Rows;
  static constexpr const char* kName = "fma4-rows";
  static constexpr const char* kSummary =
      "fma4-x16's step, a block per pair of rows, cy from constant memory: no dispatch stalls";
  // The long blocks' loop, 64 steps a trip: the steps' 256 FFMA/FADD, two escape tests (FMUL,
  // FFMA, FSETP, BRA), the pair count (IADD3, ISETP, BRA) and a register copy.
  static constexpr LoopMixes kLoop{{260, 5, 0, 0, 3},
                                   {260, 5, 0, 0, 4},
                                   {260, 5, 0, 0, 4},
                                   {260, 5, 0, 0, 4},
                                   {260, 5, 0, 0, 3}};
};

// fma4-rows that stops an orbit once z repeats a value exactly: from then on it can never escape,
// so the pixel is inside and the steps left to max_iter are not run. The counts stay exactly the
// one-step loop's, but the frame runs fewer steps than it counts, so it can beat the 4-slot limit,
// which counts every step; its bound and its figures are from the steps it ran. Each trip of 32
// or 64 steps adds a comparison with the kept value after each block (four FSETP: the first
// block's pair folds into the second block's escape test), a branch, the kept value's move on
// trips 0, 1, 3, 7, ... (a LOP3 and two FSEL), and two PLOP3 on sm_90.
struct Fma4Cycles : Fma4Rows {
  static constexpr bool kCycles = true;
  static constexpr const char* kName = "fma4-cycles";
  static constexpr const char* kSummary =
      "fma4-rows that stops orbits found periodic: exact counts, fewer steps than counted";
  static constexpr LoopMixes kLoop{{260, 14, 0, 0, 4},
                                   {260, 14, 0, 0, 5},
                                   {260, 14, 0, 0, 5},
                                   {260, 14, 0, 0, 5},
                                   {260, 14, 0, 0, 4}};
};

// Lane refill, the cure for divergence: a warp owns a 16x2 tile at a time, and a lane whose
// pixel is done takes the tile's next one instead of idling until the warp's slowest pixel is.
// Steps go in fma4-x16's paired blocks, here of 8 steps (longer blocks idle more lanes: the share
// of lanes stepping falls back towards fma4-rows's, docs/measurements.md); lanes whose pixel
// escaped wait, their block's start kept, until enough of them are waiting (render_kernel.cu),
// then replay that block and take new pixels together, so the counts stay exactly the one-step
// loop's.
struct Fma4Refill : ExactFma4 {
  static constexpr int kStepsPerCheck = 8;
  static constexpr bool kPaired = true;
  static constexpr Shape kShape = Shape::Refill;
  static constexpr const char* kName = "fma4-refill";
  static constexpr const char* kSummary =
      "fma4, lanes refilled with new pixels as theirs escape: divergence cured, at a cost";
  // From sm_80 on the loop read off the SASS is the whole trip, two blocks of 8 steps with the
  // votes and the refill (the pixel's finish: MUFU.LG2 on the XU) laid out inside it; on sm_75
  // ptxas lays the refill out of line, and the innermost loop found is the replay's single step.
  static constexpr LoopMixes kLoop{
      {6, 4, 0, 0, 2}, {71, 19, 1, 0, 6}, {72, 18, 1, 0, 6}, {72, 18, 1, 0, 6}, {73, 12, 1, 0, 6}};
};

// fma4 in double precision: DADD + 3 DFMA per step on the FP64 pipe (half the FP32 rate on
// H100/H200, 1/64 on consumer chips), and c in double, so deep zooms stay sharp longer.
struct Fp64 {
  static constexpr const char* kName = "fp64";
  static constexpr const char* kSummary = "fma4 in double: DADD + 3 DFMA per step on the FP64 pipe";
  using Real = double;
  static constexpr int kStepsPerCheck = 1;
  static constexpr bool kPaired = false;
  static constexpr bool kExactFma = false;
  static constexpr bool kAux = false;
  static constexpr bool kCycles = false;
  static constexpr Shape kShape = Shape::Queue;
  static constexpr int kRegCap = 32;
  static constexpr bool kPerturbation = false;
  static constexpr InstrMix step_mix(int) { return {0, 0, 0, 4, 0}; }
  // Escape DMUL + DFMA + DSETP on the FP64 pipe; the counter on the FMA (VIADD) or ALU pipe.
  static constexpr LoopMixes kLoop{
      {0, 2, 0, 7, 1}, {0, 2, 0, 7, 1}, {0, 2, 0, 7, 1}, {0, 2, 0, 7, 1}, {1, 1, 0, 7, 1}};
  MP_HD static void step(double& x, double& y, double cx, double cy, float& /*acc*/) {
    const double nx = x * x - (y * y - cx);
    y = 2.0 * x * y + cy;
    x = nx;
  }
};

// z^2 + c in double-float (df64.h): a float pair, about 48 bits, by error-free transforms, all
// on the FMA pipe. Three products (FMUL + 3 FFMA + a 3-add renormalisation each), three sums
// (two-sum, two adds, renormalisation: 11 each) and an exact doubling: 56 FMA-pipe instructions
// a step where fp64 takes 4 on the FP64 pipe. The escape test reads the high parts.
struct Df64Step {
  static constexpr const char* kName = "df64";
  static constexpr const char* kSummary =
      "z^2 + c in double-float (float pairs, ~48 bits) on the FMA pipe: a double without FP64";
  using Real = Df64;
  static constexpr int kStepsPerCheck = 1;
  static constexpr bool kPaired = false;
  static constexpr bool kExactFma = true;
  static constexpr bool kAux = false;
  static constexpr bool kCycles = false;
  static constexpr Shape kShape = Shape::Queue;
  static constexpr int kRegCap = 40;
  static constexpr bool kPerturbation = false;
  static constexpr InstrMix step_mix(int) { return {56, 0, 0, 0, 0}; }
  // Per trip: the step's 56, the escape test's FMUL + FFMA, the counter, FSETP, ISETP and BRA.
  static constexpr LoopMixes kLoop{
      {58, 3, 0, 0, 1}, {58, 3, 0, 0, 1}, {58, 3, 0, 0, 1}, {58, 3, 0, 0, 1}, {58, 3, 0, 0, 1}};
  MP_HD static void step(Df64& x, Df64& y, Df64 cx, Df64 cy, float& /*acc*/) {
    const Df64 xx = x * x, yy = y * y, xy = x * y;
    y = twice(xy) + cy;
    x = (xx - yy) + cx;
  }
};

// Perturbation (perturbation.h): each pixel iterates its difference d from one reference orbit Z
// that the session computes in MPFR (session/deep_reference.h), so a view of any depth renders in
// double-sized arithmetic. Their kernel is cuda/perturbation_kernel.cu, a thread a pixel, and their
// CPU reference render/perturbation_cpu.*; render_kernel.cu and the CPU renderer do not take them.
// The loop the model reads is the build that iterates every step (the tables unread): a step, the
// load of the next Z (LSU), the escape and rebase tests on z = Z + d, the counters.
struct PerturbVariant {
  using Real = double;
  static constexpr int kStepsPerCheck = 1;
  static constexpr bool kPaired = false;
  static constexpr bool kExactFma = false;
  static constexpr bool kAux = false;
  static constexpr bool kCycles = false;
  static constexpr Shape kShape = Shape::Pixel;
  static constexpr bool kPerturbation = true;
};
// d' = (2Z + d) d + dc in double: 2Z + d (2 DFMA) and the complex product with dc inside its
// FMAs (4 DFMA) on the FP64 pipe, and Z's load. Differences down to 2^-990 (kDoubleDeltaExponent).
struct PerturbDouble : PerturbVariant {
  using Delta = DeltaDouble;
  static constexpr DeltaFormat kFormat = DeltaFormat::Double;
  static constexpr const char* kName = "perturb";
  static constexpr const char* kSummary =
      "perturbation from an MPFR reference orbit, differences in double: FP64 pipe + Z's load";
  static constexpr InstrMix step_mix(int) { return {0, 0, 0, 6, 0, 1}; }
  // Per step, the warp in lockstep (perturb_lockstep.cuh): the 6, z = Z + d and |z|^2 against
  // the bailout and |d|^2 (8 more FP64), Z's one 128-bit load (LSU), the counters and the
  // address (IMAD, VIADD: FMA pipe), the tests and the vote (ALU; sm_75 keeps more of its
  // tests apart), the branch back. The rebase is in the round's code, out of the step.
  static constexpr LoopMixes kLoop{{2, 9, 0, 14, 5, 1},
                                   {2, 6, 0, 14, 2, 1},
                                   {3, 6, 0, 14, 2, 1},
                                   {3, 6, 0, 14, 2, 1},
                                   {4, 3, 0, 14, 2, 1}};
};
// The same step with the difference's exponent kept apart (DeltaExp): any depth. In units of its
// exponent a step is perturb's and two multiplies; the exponent moves, and the scale and dc made
// for it again (integer work on the ALU pipe), only when the mantissas leave [2^-64, 2^64).
struct PerturbExtended : PerturbVariant {
  using Delta = DeltaExp;
  static constexpr DeltaFormat kFormat = DeltaFormat::Extended;
  static constexpr const char* kName = "perturb-x";
  static constexpr const char* kSummary =
      "perturbation, differences with an exponent of their own: any depth, integer work beside";
  // perturb's 6 and d's scale into 2Z + d (2 DMUL), and Z's load.
  static constexpr InstrMix step_mix(int) { return {0, 0, 0, 8, 0, 1}; }
  // The loop as listed holds the rare paths inline (rescaling, the first step from 0, a Z as
  // small as d, a rebase's new exponent, the rebase at a tiny point): a step runs few of them, so
  // the listing's mix is far more than a step issues (docs/model.md says what was tried to take
  // them out of it).
  static constexpr LoopMixes kLoop{{124, 288, 0, 123, 92, 2},
                                   {126, 288, 0, 123, 73, 2},
                                   {126, 288, 0, 123, 73, 2},
                                   {126, 288, 0, 123, 73, 2},
                                   {139, 272, 0, 123, 80, 2}};
};

// DeltaExp's scheme in float (DeltaFloat): the step on the FMA pipe instead of FP64, Z as a float
// pair, 24 bits where double keeps 53. The rare paths (rescaling, Z near 0) are inline in its loop
// as in perturb-x's.
struct PerturbFloat : PerturbVariant {
  using Real = float;
  using Delta = DeltaFloat;
  static constexpr DeltaFormat kFormat = DeltaFormat::Float;
  static constexpr const char* kName = "perturb-f";
  static constexpr const char* kSummary =
      "perturbation, float differences with an exponent of their own: FMA pipe, 24 bits";
  // 2Z + d s (2 FFMA) and the complex product with dc inside its FMAs (4 FFMA), and Z's load.
  static constexpr InstrMix step_mix(int) { return {6, 0, 0, 0, 0, 1}; }
  // As listed, with the rare paths: the exponent's arithmetic in double (FP64) where Z is near 0
  // and where a value falls below float's range, its conversions to and from float (F2F on the
  // XU pipe), and the wide Z's loads there (LSU).
  static constexpr LoopMixes kLoop{{206, 414, 34, 141, 188, 3},
                                   {204, 415, 34, 141, 151, 3},
                                   {204, 415, 34, 141, 151, 3},
                                   {204, 415, 34, 141, 151, 3},
                                   {234, 388, 34, 141, 160, 3}};
};

// Steps per trip of the loop the model reads (the long blocks' where a variant has them).
template <class V>
constexpr int loop_steps() {
  if constexpr (V::kPaired)
    return 2 * (V::kLongStepsPerCheck > 0 ? V::kLongStepsPerCheck : V::kStepsPerCheck);
  else
    return V::kStepsPerCheck;
}

}  // namespace mp::variants

// The one list of variants, in the order of the UI and of keys 1, 2, 3, ... 9, 0: the plain ones,
// which render_kernel.cu and the CPU renderer run, then the perturbation ones.
#define MANDELPIPE_PLAIN_VARIANTS(X) \
  X(Fma5)                            \
  X(Fma4)                            \
  X(Fma4Sin)                         \
  X(SinRatio)                        \
  X(Fma4Esc4)                        \
  X(Fma4Esc8)                        \
  X(Fp64)                            \
  X(Df64Step)                        \
  X(Fma4X16)                         \
  X(Fma4Refill)                      \
  X(Fma4Rows)                        \
  X(Fma4Cycles)
#define MANDELPIPE_PERTURBATION_VARIANTS(X) \
  X(PerturbDouble)                          \
  X(PerturbExtended)                        \
  X(PerturbFloat)
#define MANDELPIPE_VARIANTS(X) \
  MANDELPIPE_PLAIN_VARIANTS(X) \
  MANDELPIPE_PERTURBATION_VARIANTS(X)

namespace mp {

enum class VariantId {
#define MP_VARIANT_ENUM(V) V,
  MANDELPIPE_VARIANTS(MP_VARIANT_ENUM)
#undef MP_VARIANT_ENUM
};

// f(variant struct) for the variant `id` (host code): the one switch over the list for every
// place that picks a template instance by variant.
template <class F>
decltype(auto) with_variant(VariantId id, F&& f) {
  switch (id) {
#define MP_VARIANT_CALL(V) \
  case VariantId::V: return f(variants::V{});
    MANDELPIPE_VARIANTS(MP_VARIANT_CALL)
#undef MP_VARIANT_CALL
  }
  throw std::invalid_argument("no such variant");
}

// As with_variant, for the plain variants only: the perturbation ones render from a reference
// orbit (session/deep_renderer.h), not by the kernels and loops that take a variant this way.
template <class F>
decltype(auto) with_plain_variant(VariantId id, F&& f) {
  switch (id) {
#define MP_VARIANT_CALL(V) \
  case VariantId::V: return f(variants::V{});
    MANDELPIPE_PLAIN_VARIANTS(MP_VARIANT_CALL)
#undef MP_VARIANT_CALL
    default: break;
  }
  throw std::invalid_argument("a perturbation variant renders from a reference orbit");
}

}  // namespace mp
