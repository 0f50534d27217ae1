// The bilinear approximations of a reference orbit (cuda/host_device/perturbation.h), built once
// per reference and image extent: level 0 holds each single step, level l runs of 2^l steps
// merged from two of level l-1.
#pragma once

#include <atomic>
#include <vector>

#include "perturbation.h"

namespace mp {

template <class B>
struct BlaTable {
  std::vector<B> entries;
  std::vector<unsigned> offset{0};  // levels + 1 of them

  int levels() const { return static_cast<int>(offset.size()) - 1; }
  // Valid while the table lives and is not changed.
  BlaView<B> view() const {
    BlaView<B> v;
    v.entries = entries.data();
    v.levels = levels();
    for (int l = 0; l <= v.levels; ++l) v.offset[l] = offset[l];
    return v;
  }
};

// Relative size of the dropped d^2 against the kept linear term that a run may reach: double's
// unit roundoff, so that a skipped run is as exact as the steps it replaces.
inline constexpr double kBlaEpsilon = 0x1p-53;

// `dc_max`: the largest |dc| of any pixel the table will serve (a run's radius shrinks by what B
// dc can add to d). In the extended range, and the same in double where it fits (a run whose A,
// B or radius leaves double's range is never valid there).
// Empty where `cancel` is set while it is built.
BlaTable<BlaX> build_bla_extended(RefOrbitView orbit, FloatExp dc_max,
                                  const std::atomic<bool>* cancel = nullptr);
BlaTable<BlaD> build_bla_double(const BlaTable<BlaX>& extended);
// The same runs with float mantissas (the exponents as they are): float's 24 bits of A and B,
// within the radius of double's, which is the smaller.
BlaTable<BlaF> build_bla_float(const BlaTable<BlaX>& extended);

}  // namespace mp
