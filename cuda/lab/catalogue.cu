// The list of experiments and what each asks, run_experiment, and the host helpers the
// experiment files share.
#include <cstdio>
#include <stdexcept>

#include "common.cuh"

namespace mp {
namespace {

struct Entry {
  ExperimentInfo info;
  ExperimentReport (*run)(const DeviceInfo&, CounterProbe*);
  // The prediction alone, where it needs no measurement; else what it rests on.
  ExperimentReport (*predict)(const DeviceInfo&);
  std::string_view rests_on;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = {
      {{"fma-grouping", "5 vs 4 FMA-pipe instructions per step",
        "Seed 000 regrouped x*x - y*y + cx as x*x - (y*y - cx), so that nvcc emits 4 instead "
        "of 5 FMA-pipe instructions per Mandelbrot step. On a throughput kernel without "
        "divergence, does the time fall by the predicted 5/4?"},
       lab::run_fma_grouping,
       lab::predict_fma_grouping,
       ""},
      {{"sin-overlap", "__sinf beside the step: do the XU and FMA pipes overlap?",
        "Seed 000 timed __sinf alone, a Mandelbrot step alone and both interleaved on an RTX "
        "2080 Ti (4.52 M, 4.11 M and 5.41 M cycles): together cost far less than the sum. "
        "Redone on this GPU: does the interleaved kernel take the slowest pipe's time, as the "
        "max-of-pipes bound says, or the sum?"},
       lab::run_sin_overlap,
       lab::predict_sin_overlap,
       ""},
      {{"warps-per-smsp", "Latency hidden by warps: 1 to 8 warps per SM sub-partition",
        "Seeds 002 and 004: one block per SM with 1 to 8 warps per sub-partition (SMSP), each "
        "thread running one chain of dependent FFMAs. How many warps hide the FFMA latency, "
        "and do IPC and pipe use follow max(issue, pipe, latency)?"},
       lab::run_warps_per_smsp,
       lab::predict_warps_per_smsp,
       ""},
      {{"single-warp-ilp", "One warp, 1 to 8 independent chains, with and without __sinf",
        "Seed 000 asked whether MUFU.SIN holds its warp's issue for the 8 cycles the XU pipe "
        "needs per warp-instruction, or lets the next independent FFMA issue at once. One "
        "warp per SMSP, 1 to 8 independent FFMA chains, with and without one __sinf per "
        "step."},
       lab::run_single_warp_ilp,
       lab::predict_single_warp_ilp,
       ""},
      {{"launch-overhead", "What a launch costs, and how much work hides it",
        "Seed 002: even an empty kernel costs a fixed overhead per launch. What is it here, in "
        "microseconds and SM cycles, and how many FFMAs per thread does a launch need to "
        "reach 95% of the pipe bound?"},
       lab::run_launch_overhead,
       nullptr,
       "the launch overhead it measures on the GPU: the work that hides it follows from that"},
      {{"dependent-latency", "Dependent-issue latency of FFMA, FADD, integer add and __sinf",
        "Seed 001's method: values loaded from memory, a barrier before the first clock read, "
        "a chain of dependent instructions in inline PTX, the result stored. How many cycles "
        "from an instruction to the next one that needs its result, against the latency table "
        "the predictions use?"},
       lab::run_dependent_latency,
       lab::predict_dependent_latency,
       ""},
      {{"dispatch", "if/else vs __device__ function pointers inside a warp",
        "Seed 003: does calling through an array of __device__ function pointers instead of "
        "an if/else chain avoid divergence, and what does it cost? Time against the distinct "
        "targets per warp, registers and stack per thread."},
       lab::run_dispatch,
       nullptr,
       "the times of one and two targets per warp it measures on the GPU, which fix the "
       "serialisation model that predicts the rest"},
      {{"perturbation-cost", "The step of depth: perturbation in double, extended range and float",
        "Past double's precision each pixel iterates its difference from a reference orbit: "
        "FP64 arithmetic, a load of the orbit's point, and in the extended range an exponent "
        "of its own (in float, the FMA pipe instead of FP64). What does such a step cost against "
        "the plain float step, does each come near its loop's bound, and how many steps does the "
        "bilinear approximation leave?"},
       lab::run_perturbation_cost,
       nullptr,
       "the steps the bilinear approximation leaves to iterate, which it counts on the GPU"},
      {{"kernel-overhead", "The whole kernel: the work outside the step loop as orbits shorten",
        "The bound counts the step loop; a frame also runs short first blocks, replays of "
        "escaping blocks, each pixel's set-up and finish, and what a launch adds. Over views "
        "from long orbits to short ones, how large a share of the work is outside the step loop, "
        "by the whole-kernel model and measured?"},
       lab::run_kernel_overhead,
       nullptr,
       "each frame's counts (pixels, blocks, replays) and the SASS of the kernel that ran, both "
       "from the GPU"},
  };
  return e;
}

}  // namespace

const std::vector<ExperimentInfo>& experiment_catalogue() {
  static const std::vector<ExperimentInfo> c = [] {
    std::vector<ExperimentInfo> v;
    for (const Entry& e : entries()) v.push_back(e.info);
    return v;
  }();
  return c;
}

const std::vector<std::string_view>& experiment_names() {
  static const std::vector<std::string_view> n = [] {
    std::vector<std::string_view> v;
    for (const Entry& e : entries()) v.push_back(e.info.name);
    return v;
  }();
  return n;
}

ExperimentReport run_experiment(std::string_view name, const DeviceInfo& device,
                                CounterProbe* counters) {
  for (const Entry& e : entries()) {
    if (e.info.name != name) continue;
    // The caller may be a thread of its own (the window's worker), on device 0 until told.
    CUDA_CHECK(cudaSetDevice(device.index));
    ExperimentReport r = e.run(device, counters);
    r.name = e.info.name;
    r.title = e.info.title;
    r.question = e.info.question;
    r.device = lab::device_text(device);
    return r;
  }
  std::string known;
  for (std::string_view n : experiment_names())
    known += (known.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument("unknown experiment '" + std::string(name) + "' (known: " + known +
                              ")");
}

ExperimentReport predict_experiment(std::string_view name, const DeviceInfo& device) {
  for (const Entry& e : entries()) {
    if (e.info.name != name) continue;
    ExperimentReport r;
    if (e.predict)
      r = e.predict(device);
    else
      r.conclusion = "its prediction rests on " + std::string(e.rests_on);
    r.name = e.info.name;
    r.title = e.info.title;
    r.question = e.info.question;
    // The model's figures are an architecture's.
    r.device = "sm_" + std::to_string(lab::arch_of(device)) + " (" + device.name + ")";
    return r;
  }
  throw std::invalid_argument("unknown experiment '" + std::string(name) + "'");
}

std::vector<DeclaredLoop> declared_loops(int arch) {
  std::vector<DeclaredLoop> v = lab::throughput_loops(arch);
  for (DeclaredLoop& l : lab::chain_loops(arch)) v.push_back(std::move(l));
  return v;
}

namespace lab {

std::string device_text(const DeviceInfo& d) {
  return d.name + " (sm_" + std::to_string(arch_of(d)) + ", " + std::to_string(d.sm_count) +
         " SMs)";
}

std::string fmt(const char* format, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string mix_text(const InstrMix& m) {
  std::string s;
  const std::pair<const char*, double> parts[] = {{"FMA", m.fma}, {"ALU", m.alu},
                                                  {"XU", m.xu},   {"FP64", m.fp64},
                                                  {"LSU", m.lsu}, {"other", m.other}};
  for (const auto& [name, n] : parts)
    if (n > 0) s += (s.empty() ? "" : ", ") + std::string(name) + fmt(" %g", n);
  return s + fmt(" = %g issue slots", m.total());
}

std::size_t one_block_per_sm_smem(const void* kernel) {
  int device = 0, per_sm = 0, per_block = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const int bytes = per_sm / 2 + 1024;
  if (bytes > per_block)
    throw std::runtime_error("cannot force one block per SM: a block may have " +
                             std::to_string(per_block) + " bytes of shared memory, " +
                             std::to_string(bytes) + " are needed");
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return static_cast<std::size_t>(bytes);
}

}  // namespace lab
}  // namespace mp
