// Instructions per loop iteration, per execution pipe, as one warp issues them.
#pragma once

namespace mp {

struct InstrMix {
  double fma = 0;    // FMA pipe: FFMA, FADD, FMUL, IMAD, ...
  double alu = 0;    // ALU pipe: ISETP, FSETP, IADD3, LOP3, SEL, ...
  double xu = 0;     // XU (SFU) pipe: MUFU.*, conversions
  double fp64 = 0;   // FP64 pipe: DFMA, DADD, DMUL
  double other = 0;  // issue slots only: branches, moves to/from special registers, ...
  double lsu = 0;    // LSU pipe: loads and stores of global, local and shared memory

  constexpr double total() const { return fma + alu + xu + fp64 + other + lsu; }
  constexpr InstrMix operator+(const InstrMix& o) const {
    return {fma + o.fma, alu + o.alu, xu + o.xu, fp64 + o.fp64, other + o.other, lsu + o.lsu};
  }
  constexpr InstrMix operator*(double k) const {
    return {fma * k, alu * k, xu * k, fp64 * k, other * k, lsu * k};
  }
  constexpr bool operator==(const InstrMix& o) const {
    return fma == o.fma && alu == o.alu && xu == o.xu && fp64 == o.fp64 && other == o.other &&
           lsu == o.lsu;
  }
};

}  // namespace mp
