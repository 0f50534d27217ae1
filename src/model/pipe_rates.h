// Per-compute-capability pipe throughputs: the only hardware numbers the bound model uses.
#pragma once

#include <array>
#include <string>

namespace mp {

enum class Pipe { Fma, Alu, Xu, Fp64, Lsu, Issue };
inline constexpr int kPipeCount = 6;
inline constexpr std::array<Pipe, kPipeCount> kAllPipes = {Pipe::Fma,  Pipe::Alu, Pipe::Xu,
                                                           Pipe::Fp64, Pipe::Lsu, Pipe::Issue};
const char* pipe_name(Pipe p);

struct PipeRates {
  int cc_major = 0, cc_minor = 0;  // the table row used
  bool exact = false;              // false: the device is newer than the table; nearest row used
  // Warp-instructions per clock per SM (lanes / 32); Issue: warp-instructions issued per clock.
  std::array<double, kPipeCount> per_sm{};
  double operator[](Pipe p) const { return per_sm[static_cast<int>(p)]; }
  std::string describe()
      const;  // "sm_90: FMA 128, ALU 64, XU 16, FP64 64, LSU 32 lanes/SM; 4 issue/clk"
};

// Throws std::out_of_range for devices older than the table (cc < 7.0).
PipeRates pipe_rates(int cc_major, int cc_minor);

}  // namespace mp
