// dependent-latency: one thread times chains of dependent instructions written in inline PTX
// between two clock64() reads, after seed 001's method: inputs loaded from memory so nothing
// folds, a barrier before the first clock read, the result stored, and the cost of two
// back-to-back clock reads subtracted.
#include <array>
#include <cmath>

#include "common.cuh"
#include "model/experiment_model.h"

namespace mp::lab {
namespace {

// Dependent instructions per chain: the repetitions below write out 256 of each.
constexpr int kChainLength = 256;

#define MP_REP2(s) s s
#define MP_REP4(s) s s s s
#define MP_REP16(s) MP_REP4(MP_REP4(s))
#define MP_REP256(s) MP_REP16(MP_REP16(s))

enum class Op : int { ClockOnly, Ffma, Fadd, Iadd, Sin };

struct Inputs {
  float x, a, b;
  int n, m;
};

// The clock is read again as soon as the chain's last instruction issues, so the N
// instructions span N - 1 latencies (plus the clock reads' own cost, measured by ClockOnly).
template <Op op>
__device__ __forceinline__ long long timed_chain(Inputs& v) {
  __syncthreads();
  const long long t0 = clock64();
  if constexpr (op == Op::Ffma) {
    asm volatile(MP_REP256("fma.rn.f32 %0, %0, %1, %2;\n\t") : "+f"(v.x) : "f"(v.a), "f"(v.b));
  } else if constexpr (op == Op::Fadd) {
    asm volatile(MP_REP256("add.f32 %0, %0, %1;\n\t") : "+f"(v.x) : "f"(v.b));
  } else if constexpr (op == Op::Iadd) {
    // Each add takes the other's result: n + k + k would fuse into one 3-input IADD3.
    asm volatile(MP_REP2(MP_REP4(MP_REP16("add.s32 %0, %0, %1;\n\tadd.s32 %1, %1, %0;\n\t")))
                 : "+r"(v.n), "+r"(v.m));
  } else if constexpr (op == Op::Sin) {
    asm volatile(MP_REP256("sin.approx.f32 %0, %0;\n\t") : "+f"(v.x));
  }
  const long long t1 = clock64();
  return t1 - t0;
}

__global__ void latency_kernel(const Inputs* in, float* out, long long* cycles, Op op) {
  Inputs v = *in;
  long long c = 0;
  // The first pass waits for the loads and fills the instruction cache; the second is kept.
#pragma unroll 1
  for (int pass = 0; pass < 2; ++pass) {
    switch (op) {
      case Op::ClockOnly: c = timed_chain<Op::ClockOnly>(v); break;
      case Op::Ffma: c = timed_chain<Op::Ffma>(v); break;
      case Op::Fadd: c = timed_chain<Op::Fadd>(v); break;
      case Op::Iadd: c = timed_chain<Op::Iadd>(v); break;
      case Op::Sin: c = timed_chain<Op::Sin>(v); break;
    }
  }
  out[0] = v.x + static_cast<float>(v.n + v.m);
  *cycles = c;
}

// A chain each instruction of the table times, and the table's latency for it.
struct Case {
  Op op;
  const char* label;
  const char* ptx;
  Latency predicted;
};
std::array<Case, 4> cases(const LatencyTable& table) {
  return {{
      {Op::Ffma, "FFMA", "fma.rn.f32 x, x, a, b", table.ffma},
      {Op::Fadd, "FADD", "add.f32 x, x, b", table.fadd},
      {Op::Iadd, "IADD3", "add.s32, two registers feeding each other", table.iadd},
      {Op::Sin, "FMUL.RZ + MUFU.SIN", "sin.approx.f32 x, x (__sinf)", table.sin},
  }};
}

std::string model_text(const LatencyTable& table) {
  return "latency table in src/model/experiment_model.cpp (sm_" + std::to_string(table.cc_major) +
         std::to_string(table.cc_minor) + (table.exact ? "" : ", nearest older row") +
         "); measured = (cycles around a chain of " + std::to_string(kChainLength) +
         " dependent instructions - cycles of two back-to-back clock64 reads) / " +
         std::to_string(kChainLength - 1) +
         "; one thread, second pass of two, median of 5 launches after a warm-up";
}

}  // namespace

ExperimentReport predict_dependent_latency(const DeviceInfo& d) {
  const LatencyTable table = latency_table(d.cc_major, d.cc_minor);
  ExperimentReport rep;
  rep.model = model_text(table);
  for (const Case& c : cases(table))
    rep.rows.push_back(
        {c.label, c.predicted.cycles, 0, "cycles",
         std::string(c.ptx) + "; table: " + latency_source_text(c.predicted.source)});
  return rep;
}

ExperimentReport run_dependent_latency(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const LatencyTable table = latency_table(d.cc_major, d.cc_minor);
  const Inputs inputs{0.5f, 0.999f, 1e-3f, 3, 5};
  DeviceBuffer<Inputs> in(1);
  DeviceBuffer<float> out(1);
  DeviceBuffer<long long> cycles(1);
  CUDA_CHECK(cudaMemcpy(in.get(), &inputs, sizeof inputs, cudaMemcpyHostToDevice));

  auto median_cycles = [&](Op op) {
    std::vector<double> runs;
    for (int r = 0; r <= 5; ++r) {  // the first launch is a warm-up
      latency_kernel<<<1, 1, 0, bench.stream()>>>(in.get(), out.get(), cycles.get(), op);
      CUDA_CHECK(cudaGetLastError());
      long long c = 0;
      CUDA_CHECK(
          cudaMemcpyAsync(&c, cycles.get(), sizeof c, cudaMemcpyDeviceToHost, bench.stream()));
      CUDA_CHECK(cudaStreamSynchronize(bench.stream()));
      if (r > 0) runs.push_back(static_cast<double>(c));
    }
    return mp::median(runs);
  };

  const double clock_only = median_cycles(Op::ClockOnly);
  ExperimentReport rep;
  rep.model = model_text(table);
  rep.rows.push_back({"two back-to-back clock64() reads", std::nullopt, clock_only, "cycles",
                      "subtracted from every chain"});
  std::string summary;
  for (const Case& c : cases(table)) {
    const double per = (median_cycles(c.op) - clock_only) / (kChainLength - 1);
    rep.rows.push_back(
        {c.label, c.predicted.cycles, per, "cycles",
         std::string(c.ptx) + "; table: " + latency_source_text(c.predicted.source)});
    summary += std::string(summary.empty() ? "" : ", ") + c.label + fmt(" %.1f", per) +
               fmt(" (table %g)", c.predicted.cycles);
  }
  int off = 0;
  for (std::size_t i = 1; i < rep.rows.size(); ++i)
    off += std::fabs(*rep.rows[i].ratio() - 1) > 0.1;
  rep.conclusion = "Dependent-issue latencies in cycles: " + summary + ". " +
                   (off ? std::to_string(off) + " of 4 differ from the table by more than 10%."
                        : std::string("All four are within 10% of the table."));
  return rep;
}

}  // namespace mp::lab
