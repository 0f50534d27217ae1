// Reading SASS as cuobjdump prints it: functions, the render loop, instructions by pipe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "instr_mix.h"

namespace mp::sass {

struct Instruction {
  unsigned address = 0;
  std::string predicate;  // "@P0", "@!P1", or ""
  std::string opcode;     // with modifiers: "FFMA.FTZ", "ISETP.GE.U32.AND"
  std::string operands;
  std::optional<unsigned> branch_target;  // for BRA & co.
  std::string base() const { return opcode.substr(0, opcode.find('.')); }
};

struct Function {
  std::string arch;  // "sm_90"
  std::string name;  // mangled
  std::vector<Instruction> code;
};

// Parses `cuobjdump -sass` output (every arch section it holds).
std::vector<Function> parse_cuobjdump(std::string_view text);

enum class PipeClass { Fma, Alu, Xu, Fp64, Lsu, Other };
const char* pipe_class_name(PipeClass c);

// `arch` below is 10 x compute capability (sm_90: 90). Each opcode is looked up in the pipe
// table of that compute capability or, between tables, of the nearest older one (sm_72 takes
// the table of sm_70 and sm_75, sm_87 sm_86's, sm_100 and sm_120 sm_90's); below sm_70 they
// throw std::out_of_range.

// 10 x compute capability from a cuobjdump architecture name ("sm_90a" -> 90); 0 if not one.
int arch_number(std::string_view arch);
// The pipe the table of `arch` gives an opcode (by its base name), if the table names it.
std::optional<PipeClass> table_pipe(int arch, std::string_view base_opcode);
// Which pipe executes an opcode: the table's, or Other (an issue slot, no modelled pipe).
PipeClass classify(int arch, std::string_view base_opcode);

// FMA-pipe opcodes only the fmaheavy half of the pipe executes (integer multiply-adds and the
// moves and adds built on them) on chips that split the pipe (sm_86 and newer); none before.
bool fma_heavy_only(int arch, std::string_view base_opcode);

// How a variant struct appears in mangled names: "Fma5" -> "variants4Fma5E".
std::string mangled_variant(std::string_view variant_type);
// The builds of a variant's kernel (cuda/render_kernel.cu): the one that draws the pixels only
// (render_kernel<V, false>), the one that also records the tile costs and the divergence view's
// outputs (render_kernel<V, true>), and the one that goes on from orbits a launch before cut
// (resumable_kernel<V>). ptxas may lay out each one's step loop a little differently. The
// perturbation variants have one, Plain: perturb_kernel<V, false> (cuda/perturbation_kernel.cu).
enum class KernelBuild { Plain, Recording, Resumable };
// The build of the kernel whose mangled name holds `mangled` (e.g. mangled_variant("Fma5")).
const Function* find_render_kernel(const std::vector<Function>& functions, std::string_view mangled,
                                   KernelBuild build = KernelBuild::Plain);

// Indices [first, last] of a loop: last is a branch back to first.
struct Loop {
  std::size_t first = 0, last = 0;
};
// The innermost backward-branch loops that touch no memory and do the most floating-point
// arithmetic: one, unless ptxas copied the step loop (then the copies' mixes may differ and
// which one runs cannot be read off the SASS).
std::vector<Loop> step_loop_candidates(const Function& f);
// The step loop: the first of the candidates.
std::optional<Loop> find_step_loop(const Function& f);
// The loop's instructions by pipe, by the table of f's architecture.
InstrMix mix_of(const Function& f, const Loop& loop);
// Branches inside the loop to a place inside it but its back edge: above 0 the listing holds
// paths a trip chooses between, so a trip issues fewer instructions than it lists.
std::size_t branches_within(const Function& f, const Loop& loop);

}  // namespace mp::sass
