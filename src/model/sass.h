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

enum class PipeClass { Fma, Alu, Xu, Fp64, Other };
const char* pipe_class_name(PipeClass c);
// Which pipe executes an opcode (by its base name) on compute capability 7.0 and newer.
PipeClass classify(std::string_view base_opcode);

// The render kernel instantiated for a variant struct (mangled as "...8variants4Fma5E...").
const Function* find_render_kernel(const std::vector<Function>& functions,
                                   std::string_view variant_type);

// Indices [first, last] of a loop: last is a branch back to first.
struct Loop {
  std::size_t first = 0, last = 0;
};
// The step loop: of the innermost backward-branch loops, the one with the most floating-point
// arithmetic.
std::optional<Loop> find_step_loop(const Function& f);
InstrMix mix_of(const Function& f, const Loop& loop);

}  // namespace mp::sass
