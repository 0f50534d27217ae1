#include "pipe_rates.h"

#include <cstdio>
#include <vector>

#include "model/cc_table.h"

namespace mp {

const char* pipe_name(Pipe p) {
  switch (p) {
    case Pipe::Fma: return "FMA";
    case Pipe::Alu: return "ALU";
    case Pipe::Xu: return "XU";
    case Pipe::Fp64: return "FP64";
    case Pipe::Lsu: return "LSU";
    case Pipe::Issue: return "issue";
  }
  return "?";
}

namespace {

struct Row {
  int major, minor;
  double fma_lanes, alu_lanes, xu_lanes, fp64_lanes, lsu_lanes;
};

// Lanes per SM, from the CUDA C++ Programming Guide's arithmetic-throughput table (32-bit
// FP add/mul/fma; 32-bit integer add/compare; sin/cos/log2/exp2; 64-bit FP). The sm_90 row
// was checked by throughput probes on an H200. LSU: one warp-instruction a clock
// per SM on every row, the rate at which the SM's shared MIO queue feeds the LSU pipe (NVIDIA
// Developer Forums, "How does the LSU execute load/store instructions in the Ampere
// architecture?", reply 8); sm_90's against ncu's peak of sm__inst_executed_pipe_lsu. All rows
// issue one warp-instruction per clock on each of 4 SM sub-partitions.
constexpr double kIssuePerSm = 4;
const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {7, 0, 64, 64, 16, 32, 32},    // Volta (V100)
      {7, 5, 64, 64, 16, 2, 32},     // Turing: FFMA occupies a sub-partition for 2 issue cycles
      {8, 0, 64, 64, 16, 32, 32},    // A100
      {8, 6, 128, 64, 16, 2, 32},    // GA10x: fmaheavy + fmalite
      {8, 7, 128, 64, 16, 2, 32},    // Orin
      {8, 9, 128, 64, 16, 2, 32},    // Ada
      {9, 0, 128, 64, 16, 64, 32},   // Hopper (H100, H200): FP64 at 1/2 the FP32 rate
      {10, 0, 128, 64, 16, 64, 32},  // Blackwell datacenter
      {12, 0, 128, 64, 16, 2, 32},   // Blackwell consumer: FP64 at 1/64
  };
  return r;
}

}  // namespace

PipeRates pipe_rates(int cc_major, int cc_minor) {
  const Row* best = &nearest_cc_row(rows(), cc_major, cc_minor, "pipe-rate table");
  PipeRates r;
  r.cc_major = best->major;
  r.cc_minor = best->minor;
  r.exact = best->major == cc_major && best->minor == cc_minor;
  r.per_sm = {best->fma_lanes / 32,  best->alu_lanes / 32, best->xu_lanes / 32,
              best->fp64_lanes / 32, best->lsu_lanes / 32, kIssuePerSm};
  return r;
}

std::string PipeRates::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "sm_%d%d%s: FMA %g, ALU %g, XU %g, FP64 %g, LSU %g lanes/SM; %g issue/clk",
                cc_major, cc_minor, exact ? "" : " (nearest older row)", per_sm[0] * 32,
                per_sm[1] * 32, per_sm[2] * 32, per_sm[3] * 32, per_sm[4] * 32, per_sm[5]);
  return buf;
}

}  // namespace mp
