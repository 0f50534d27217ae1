// The step variants: how one Mandelbrot iteration z <- z^2 + c is written, and what the
// compiler makes of it. Each variant is a struct holding its device function and, beside
// it, the instruction mix we expect in the SASS of the render loop (checked by
// tests/sass_mix_test.cpp against cuobjdump of the built kernel).
//
// To add a variant: write a struct like the ones below and add it to MANDELPIPE_VARIANTS.
#pragma once

#include "hd.h"
#include "instr_mix.h"

namespace mp::variants {

// Escape test and loop bookkeeping shared by every variant, once per iteration, as nvcc 13
// builds it: FMUL y*y + FFMA x*x+yy (escape) and an IMAD.MOV copy of n the compiler keeps for
// the exit (FMA pipe); FSETP escape and ISETP trip count (ALU); the predicated backward BRA
// (an issue slot, no modelled pipe). The counter's n+1 is VIADD on sm_90, which ncu counts on
// the FMA pipe, and IADD3 (ALU) on sm_75..sm_89. `sm` is 10 x compute capability.
constexpr InstrMix loop_overhead(int sm) {
  return sm >= 90 ? InstrMix{4, 2, 0, 0, 1} : InstrMix{3, 3, 0, 0, 1};
}

// z = (x*x - y*y + cx, 2xy + cy) as written: nvcc emits FMUL, FFMA, FADD for the real part
// and FADD, FFMA for the imaginary part - five FMA-pipe instructions.
struct Fma5 {
  static constexpr const char* kName = "fma5";
  static constexpr const char* kSummary = "naive x*x - y*y + cx: 5 FMA-pipe instructions per step";
  static constexpr InstrMix kStepMix{5, 0, 0, 0, 0};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& /*acc*/) {
    const float nx = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = nx;
  }
};

// Grouping the constant with y*y lets both products become FFMAs: x*x - (y*y - cx) is
// FFMA(y,y,-cx) then FFMA(x,x,-t): four FMA-pipe instructions per step.
struct Fma4 {
  static constexpr const char* kName = "fma4";
  static constexpr const char* kSummary =
      "grouped x*x - (y*y - cx): 4 FMA-pipe instructions per step";
  static constexpr InstrMix kStepMix{4, 0, 0, 0, 0};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& /*acc*/) {
    const float nx = x * x - (y * y - cx);
    y = 2.0f * x * y + cy;
    x = nx;
  }
};

// fma4 plus one __sinf per step on a value off the z chain (its sum becomes a stripe
// colouring term, so the compiler must keep it). __sinf is FMUL.RZ + MUFU.SIN: the XU pipe
// works beside the FMA pipe instead of after it.
struct Fma4Sin {
  static constexpr const char* kName = "fma4-sin";
  static constexpr const char* kSummary =
      "fma4 + one __sinf per step on an independent value (XU pipe beside FMA)";
  // FMA pipe: fma4's 4 + FMUL.RZ (the 1/2pi scaling of __sinf) + FADD into acc; XU: MUFU.SIN.
  static constexpr InstrMix kStepMix{6, 0, 1, 0, 0};
  MP_HD static void step(float& x, float& y, float cx, float cy, float& acc) {
    acc += fast_sin(x);
    Fma4::step(x, y, cx, cy, acc);
  }
};

}  // namespace mp::variants

// The one list of variants, in the order of the UI and of keys 1, 2, 3, ...
#define MANDELPIPE_VARIANTS(X) \
  X(Fma5)                      \
  X(Fma4)                      \
  X(Fma4Sin)

namespace mp {

enum class VariantId {
#define MP_VARIANT_ENUM(V) V,
  MANDELPIPE_VARIANTS(MP_VARIANT_ENUM)
#undef MP_VARIANT_ENUM
};

}  // namespace mp
