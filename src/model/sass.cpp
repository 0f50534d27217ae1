#include "sass.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "model/cc_table.h"

namespace mp::sass {
namespace {

// No cuobjdump line comes near this; skipping longer ones bounds the work on malformed text.
constexpr std::size_t kMaxLineLength = 4096;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
bool is_word(char c) {
  return is_digit(c) || is_lower(c) || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string_view trim_left(std::string_view s) {
  std::size_t a = 0;
  while (a < s.size() && is_space(s[a])) ++a;
  return s.substr(a);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  std::size_t b = s.size();
  while (b > 0 && is_space(s[b - 1])) --b;
  return s.substr(0, b);
}

// Length of the run of characters `in_run` accepts at the start of `s`.
template <class Pred>
std::size_t run_length(std::string_view s, Pred in_run) {
  std::size_t n = 0;
  while (n < s.size() && in_run(s[n])) ++n;
  return n;
}

// Length of the word (up to a space) at the start of `s`.
std::size_t word_length(std::string_view s) {
  return run_length(s, [](char c) { return !is_space(c); });
}

// The first `prefix` in `s` that a non-empty run of `in_run` characters follows, with that run;
// empty if none.
template <class Pred>
std::string_view find_prefixed_run(std::string_view s, std::string_view prefix, Pred in_run) {
  for (auto at = s.find(prefix); at != std::string_view::npos; at = s.find(prefix, at + 1)) {
    const std::size_t n = run_length(s.substr(at + prefix.size()), in_run);
    if (n > 0) return s.substr(at, prefix.size() + n);
  }
  return {};
}

// Hex digits as an address; nullopt when they do not fit (tool output is not trusted to).
std::optional<unsigned> parse_hex(std::string_view digits) {
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

// "code for sm_90a" anywhere in the line: the architecture.
std::string_view arch_in(std::string_view line) {
  const std::string_view run = find_prefixed_run(line, "code for sm_", is_digit);
  if (run.empty()) return {};
  const std::size_t begin = run.data() - line.data() + 9;  // past "code for "
  std::size_t end = run.data() - line.data() + run.size();
  if (end < line.size() && is_lower(line[end])) ++end;
  return line.substr(begin, end - begin);
}

// "Function : name" anywhere in the line: the mangled name.
std::string_view function_in(std::string_view line) {
  for (auto at = line.find("Function"); at != std::string_view::npos;
       at = line.find("Function", at + 1)) {
    std::string_view rest = trim_left(line.substr(at + 8));
    if (rest.empty() || rest[0] != ':') continue;
    rest = trim_left(rest.substr(1));
    if (const std::size_t n = word_length(rest); n > 0) return rest.substr(0, n);
  }
  return {};
}

// ".L_x_1:" at the start of the line: the label.
std::string_view label_in(std::string_view line) {
  line = trim_left(line);
  if (line.substr(0, 3) != ".L_") return {};
  const std::size_t n = 3 + run_length(line.substr(3), is_word);
  return n > 3 && n < line.size() && line[n] == ':' ? line.substr(0, n) : std::string_view{};
}

// "/*0280*/  @!P0 BRA P1, 0x1b0 ;": the instruction; nullopt if the line holds none, or one with
// no opcode or an address that does not fit.
std::optional<Instruction> instruction_in(std::string_view line) {
  line = trim_left(line);
  if (line.substr(0, 2) != "/*") return std::nullopt;
  const std::size_t digits = run_length(line.substr(2), is_hex);
  const std::optional<unsigned> address = parse_hex(line.substr(2, digits));
  std::string_view rest = line.substr(2 + digits);
  if (!address || rest.substr(0, 2) != "*/" || rest.size() < 3 || !is_space(rest[2]))
    return std::nullopt;
  rest = rest.substr(3);
  const auto semicolon = rest.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  std::string_view body = trim(rest.substr(0, semicolon));
  Instruction ins;
  ins.address = *address;
  if (!body.empty() && body[0] == '@') {
    const std::size_t n = word_length(body);
    ins.predicate = body.substr(0, n);
    body = trim(body.substr(n));
  }
  if (body.empty()) return std::nullopt;
  const std::size_t n = word_length(body);
  ins.opcode = body.substr(0, n);
  ins.operands = trim(body.substr(n));
  return ins;
}

bool is_branch(const std::string& base) {
  return base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX";
}

}  // namespace

// Hand-written scanning rather than std::regex: its recursive matcher overflows the stack on a
// long line, and this parses tool output that must never take the app down.
std::vector<Function> parse_cuobjdump(std::string_view text) {
  std::vector<Function> out;
  std::string arch;
  std::unordered_map<std::string, unsigned> labels;
  std::vector<std::pair<std::size_t, std::string>> pending;  // instruction index, label
  auto resolve = [&] {
    if (out.empty()) return;
    for (auto& [i, l] : pending)
      if (auto it = labels.find(l); it != labels.end())
        out.back().code[i].branch_target = it->second;
    pending.clear();
    labels.clear();
  };
  std::vector<std::string> waiting_labels;
  for (std::size_t a = 0, b; a < text.size(); a = b + 1) {
    b = std::min(text.find('\n', a), text.size());
    const std::string_view line = text.substr(a, b - a);
    if (line.size() > kMaxLineLength) continue;
    if (const std::string_view found = arch_in(line); !found.empty()) {
      arch = found;
      continue;
    }
    if (const std::string_view name = function_in(line); !name.empty()) {
      resolve();
      out.push_back({arch, std::string(name), {}});
      continue;
    }
    if (out.empty()) continue;
    if (const std::string_view label = label_in(line); !label.empty()) {
      waiting_labels.emplace_back(label);
      continue;
    }
    std::optional<Instruction> ins = instruction_in(line);
    if (!ins) continue;
    for (const std::string& l : waiting_labels) labels[l] = ins->address;
    waiting_labels.clear();
    if (is_branch(ins->base())) {
      // A hex target that does not fit is no target: parse_hex leaves it unset.
      if (const auto label = find_prefixed_run(ins->operands, ".L_", is_word); !label.empty())
        pending.emplace_back(out.back().code.size(), label);
      else if (const auto hex = find_prefixed_run(ins->operands, "0x", is_hex); !hex.empty())
        ins->branch_target = parse_hex(hex.substr(2));
    }
    out.back().code.push_back(std::move(*ins));
  }
  resolve();
  return out;
}

const char* pipe_class_name(PipeClass c) {
  switch (c) {
    case PipeClass::Fma: return "FMA";
    case PipeClass::Alu: return "ALU";
    case PipeClass::Xu: return "XU";
    case PipeClass::Fp64: return "FP64";
    case PipeClass::Lsu: return "LSU";
    case PipeClass::Other: return "other";
  }
  return "?";
}

// One pipe table per compute capability. The sources, cited by letter:
//  [A] NVIDIA Developer Forums, "Separate CUDA Core pipeline for FP16 and FP32?", reply 7
//      (forums.developer.nvidia.com/t/separate-cuda-core-pipeline-for-fp16-and-fp32/302018/7):
//      the pipes of GA100, GA10x and GH100.
//  [B] NVIDIA Developer Forums, reply 4 on GV100's pipes (forums.developer.nvidia.com/t/
//      int-32-and-fp64-can-be-used-concurrently-in-the-volta-architecture/108729/4).
//  [C] Stack Overflow, an answer on Nsight Compute's pipes (stackoverflow.com/a/61431557): each
//      Volta and Turing SM sub-partition has ALU, FMA, FP16 and XU units.
//  [D] CUDA Binary Utilities, Instruction Set Reference
//      (docs.nvidia.com/cuda/cuda-binary-utilities/#instruction-set-reference): the opcodes of
//      Turing, of Ampere and Ada, and of Hopper.
// Rows marked "(before)" keep the pipe of the single Volta-to-Hopper table these replace: no
// source here speaks of them. Only sm_90's table was checked against hardware counters, for the
// opcodes of the render loops (SassFixtures.Sm90PipesMatchHardwareCounters). Uniform-datapath
// (U*) instructions, constant loads, control and special registers take an issue slot but none of
// the modelled pipes, so no table names them and they count as Other.
namespace {

using Row = std::pair<std::string_view, PipeClass>;

constexpr Row kEveryArch[] = {
    // FP32 arithmetic, IMAD and IDP: the FMA pipe [A][B]; IMUL and the 32I forms with them
    // (before).
    {"FFMA", PipeClass::Fma},
    {"FADD", PipeClass::Fma},
    {"FMUL", PipeClass::Fma},
    {"FFMA32I", PipeClass::Fma},
    {"FADD32I", PipeClass::Fma},
    {"FMUL32I", PipeClass::Fma},
    {"IMAD", PipeClass::Fma},
    {"IMAD32I", PipeClass::Fma},
    {"IMUL", PipeClass::Fma},
    {"IMUL32I", PipeClass::Fma},
    {"IDP", PipeClass::Fma},
    {"FSWZADD", PipeClass::Fma},  // (before)
    // Integer arithmetic but IMAD, logic and data movement: the ALU pipe [B].
    {"IADD3", PipeClass::Alu},
    {"IADD", PipeClass::Alu},
    {"ISETP", PipeClass::Alu},
    {"ISET", PipeClass::Alu},
    {"IMNMX", PipeClass::Alu},
    {"IABS", PipeClass::Alu},
    {"LEA", PipeClass::Alu},
    {"LOP3", PipeClass::Alu},
    {"LOP", PipeClass::Alu},
    {"PLOP3", PipeClass::Alu},
    {"SHF", PipeClass::Alu},
    {"SHL", PipeClass::Alu},
    {"SHR", PipeClass::Alu},
    {"BMSK", PipeClass::Alu},
    {"SGXT", PipeClass::Alu},
    {"SEL", PipeClass::Alu},
    {"PRMT", PipeClass::Alu},
    {"MOV", PipeClass::Alu},
    {"P2R", PipeClass::Alu},
    {"R2P", PipeClass::Alu},
    // A warp's vote, and a register pair zeroed (or a special one read): the ALU, by sm_90's
    // counters over perturb's lockstep loop (a vote a step) and its rounds (four predicated
    // CS2R a round; docs/measurements.md); taken for the other chips unchecked (before: an issue
    // slot only).
    {"VOTE", PipeClass::Alu},
    {"CS2R", PipeClass::Alu},
    // Float compares, selects and range checks (before). The sources speak of FP16x2
    // arithmetic only, not of HSETP2.
    {"FSETP", PipeClass::Alu},
    {"FSET", PipeClass::Alu},
    {"FSEL", PipeClass::Alu},
    {"FMNMX", PipeClass::Alu},
    {"FCHK", PipeClass::Alu},
    {"HSETP2", PipeClass::Alu},
    // Transcendentals, conversions and bit counts (before).
    {"MUFU", PipeClass::Xu},
    {"F2I", PipeClass::Xu},
    {"I2F", PipeClass::Xu},
    {"F2F", PipeClass::Xu},
    {"FRND", PipeClass::Xu},
    {"POPC", PipeClass::Xu},
    {"FLO", PipeClass::Xu},
    {"BREV", PipeClass::Xu},
    // FP64 instructions: the FP64 pipe [A][B].
    {"DFMA", PipeClass::Fp64},
    {"DADD", PipeClass::Fp64},
    {"DMUL", PipeClass::Fp64},
    {"DSETP", PipeClass::Fp64},
    {"DMNMX", PipeClass::Fp64},
    // Loads, stores, atomics and reductions of global, local and shared memory: the LSU pipe, which
    // hands them to L1TEX (the forum reply pipe_rates.cpp cites).
    {"LD", PipeClass::Lsu},
    {"LDG", PipeClass::Lsu},
    {"LDL", PipeClass::Lsu},
    {"LDS", PipeClass::Lsu},
    {"ST", PipeClass::Lsu},
    {"STG", PipeClass::Lsu},
    {"STL", PipeClass::Lsu},
    {"STS", PipeClass::Lsu},
    {"ATOM", PipeClass::Lsu},
    {"ATOMG", PipeClass::Lsu},
    {"ATOMS", PipeClass::Lsu},
    {"RED", PipeClass::Lsu},
    {"REDG", PipeClass::Lsu},
};

// FP16x2 arithmetic runs on a pipe of its own on Volta [B] and Turing [C], and on GA100 on the
// pipe it shares with tensor and FP64 instructions [A]. Neither is modelled: an issue slot only.
constexpr Row kFp16OffTheFmaPipe[] = {
    {"HADD2", PipeClass::Other},
    {"HMUL2", PipeClass::Other},
    {"HFMA2", PipeClass::Other},
};
// GA10x and GH100 issue FP16x2 arithmetic to both halves of the FMA pipe [A]. The model counts
// it once, as it counts an FFMA, though it takes both fmaheavy and fmalite.
constexpr Row kFp16OnTheFmaPipe[] = {
    {"HADD2", PipeClass::Fma},
    {"HMUL2", PipeClass::Fma},
    {"HFMA2", PipeClass::Fma},
};
// Opcodes [D] lists from Ampere on, not for Turing; their pipes (before).
constexpr Row kSinceAmpere[] = {
    {"I2FP", PipeClass::Alu},
    {"F2IP", PipeClass::Alu},
    {"HMNMX2", PipeClass::Alu},
};
// Opcodes [D] lists from Hopper on.
constexpr Row kSinceHopper[] = {
    // sm_90's integer add: ncu counts it on the FMA pipe (sm__inst_executed_pipe_fma).
    {"VIADD", PipeClass::Fma},
    {"VIMNMX", PipeClass::Alu},  // (before)
};

// fmaheavy alone takes IMAD and IDP [A]; IMUL, the 32I forms and VIADD with them (before).
constexpr std::string_view kFmaHeavyOnly[] = {"IMAD", "IMAD32I", "IMUL", "IMUL32I", "IDP"};
constexpr std::string_view kFmaHeavyOnlySinceHopper[] = {"VIADD"};

template <class Table, class... Groups>
Table join(const Groups&... groups) {
  Table t;
  (t.insert(std::begin(groups), std::end(groups)), ...);
  return t;
}

struct ArchTable {
  int major, minor;  // the oldest compute capability it is for
  std::map<std::string_view, PipeClass> pipes;
  std::set<std::string_view> heavy_only;
};

const ArchTable& arch_table(int arch) {
  using Pipes = std::map<std::string_view, PipeClass>;
  using Names = std::set<std::string_view>;
  static const std::vector<ArchTable> tables = {
      // Volta (sm_70, sm_72) and Turing (sm_75): one FMA pipe for FP32 and IMAD [B], and FP16x2
      // on a pipe beside it [B][C]. They differ in Turing's uniform datapath, which no table
      // names, so they share one table.
      {7, 0, join<Pipes>(kEveryArch, kFp16OffTheFmaPipe), {}},
      // GA100: one FMA pipe for FP32, IMAD and IDP; FP16x2 on the shared pipe [A].
      {8, 0, join<Pipes>(kEveryArch, kFp16OffTheFmaPipe, kSinceAmpere), {}},
      // GA10x: the FMA pipe split into fmaheavy (FP32, IMAD, IDP) and fmalite (FP32) [A].
      {8, 6, join<Pipes>(kEveryArch, kFp16OnTheFmaPipe, kSinceAmpere), join<Names>(kFmaHeavyOnly)},
      // Ada: no source tells its pipes apart from GA10x's; [D] gives it Ampere's opcodes, and
      // GA10x's rows are also what the Volta-to-Hopper table had.
      {8, 9, join<Pipes>(kEveryArch, kFp16OnTheFmaPipe, kSinceAmpere), join<Names>(kFmaHeavyOnly)},
      // GH100: the FMA pipes and FP16x2 as GA10x's [A]. Newer chips run this executable's sm_90
      // PTX, and the SASS loader reads sm_90's SASS for them.
      {9, 0, join<Pipes>(kEveryArch, kFp16OnTheFmaPipe, kSinceAmpere, kSinceHopper),
       join<Names>(kFmaHeavyOnly, kFmaHeavyOnlySinceHopper)},
  };
  return nearest_cc_row(tables, arch / 10, arch % 10, "SASS pipe table");
}

}  // namespace

int arch_number(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return 0;
  const std::string_view rest = arch.substr(3);
  const std::size_t digits = run_length(rest, is_digit);
  const bool suffix = rest.size() == digits + 1 && is_lower(rest.back());
  if (digits < 2 || digits > 3 || (rest.size() != digits && !suffix)) return 0;
  int number = 0;
  std::from_chars(rest.data(), rest.data() + digits, number);
  return number;
}

std::optional<PipeClass> table_pipe(int arch, std::string_view base) {
  const auto& pipes = arch_table(arch).pipes;
  const auto it = pipes.find(base);
  if (it == pipes.end()) return std::nullopt;
  return it->second;
}

PipeClass classify(int arch, std::string_view base) {
  return table_pipe(arch, base).value_or(PipeClass::Other);
}

bool fma_heavy_only(int arch, std::string_view base) {
  return arch_table(arch).heavy_only.count(base) > 0;
}

namespace {
constexpr std::string_view kPerturbKernel = "14perturb_kernelI";
}  // namespace

std::string mangled_variant(std::string_view variant_type) {
  return "variants" + std::to_string(variant_type.size()) + std::string(variant_type) + "E";
}

const Function* find_render_kernel(const std::vector<Function>& functions, std::string_view mangled,
                                   KernelBuild build) {
  // The template's name, and for render_kernel its bool argument; a perturbation variant's
  // kernel is perturb_kernel<V, false>, the build that iterates every step.
  const std::string_view kernel =
      build == KernelBuild::Resumable ? "16resumable_kernelI" : "13render_kernelI";
  const std::string_view flag = build == KernelBuild::Recording ? "Lb1E"
                                : build == KernelBuild::Plain   ? "Lb0E"
                                                                : "";
  auto named = [&](const Function& f, std::string_view k) {
    return f.name.find(k) != std::string::npos && f.name.find(mangled) != std::string::npos &&
           f.name.find(flag) != std::string::npos;
  };
  for (const Function& f : functions)
    if (named(f, kernel) || (build == KernelBuild::Plain && named(f, kPerturbKernel))) return &f;
  return nullptr;
}

std::vector<Loop> step_loop_candidates(const Function& f) {
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    const Instruction& br = f.code[i];
    if (!br.branch_target || *br.branch_target > br.address) continue;
    // Only a head before the branch makes a loop: with addresses out of order, the first
    // instruction at the target may come after it, and [first, last] would run backwards.
    const auto end = f.code.begin() + i + 1;
    const auto first = std::find_if(
        f.code.begin(), end, [&](const Instruction& x) { return x.address == *br.branch_target; });
    if (first != end) loops.push_back({static_cast<std::size_t>(first - f.code.begin()), i});
  }
  auto float_ops = [&](const Loop& l) {
    return std::count_if(f.code.begin() + l.first, f.code.begin() + l.last + 1,
                         [](const Instruction& x) {
                           const std::string b = x.base();
                           return b == "FFMA" || b == "FADD" || b == "FMUL" || b == "DFMA" ||
                                  b == "DADD" || b == "DMUL";
                         });
  };
  // The step loop touches no memory: a loop that stores or takes a tile is the per-tile loop
  // (or a copy of it that ptxas made for a case that never has steps). The perturbation kernels'
  // step loop reads the reference orbit, and only stores and atomics tell their loops apart.
  const bool reads_orbit = f.name.find(kPerturbKernel) != std::string::npos;
  auto touches_memory = [&](const Loop& l) {
    return std::any_of(
        f.code.begin() + l.first, f.code.begin() + l.last + 1, [&](const Instruction& x) {
          static const std::set<std::string> memory = {"ST",   "STG",   "STS",   "STL", "LDG",
                                                       "ATOM", "ATOMG", "ATOMS", "RED", "REDG"};
          return memory.count(x.base()) > 0 && !(reads_orbit && x.base() == "LDG");
        });
  };
  // Innermost loops only; of those, the ones doing the most arithmetic (a replay or remainder
  // loop beside the step loop does one step per trip).
  std::vector<Loop> best;
  for (const Loop& l : loops) {
    const bool outer = std::any_of(loops.begin(), loops.end(), [&](const Loop& o) {
      return &o != &l && o.first >= l.first && o.last <= l.last;
    });
    if (outer || float_ops(l) == 0 || touches_memory(l)) continue;
    if (!best.empty() && float_ops(l) < float_ops(best.front())) continue;
    if (!best.empty() && float_ops(l) > float_ops(best.front())) best.clear();
    best.push_back(l);
  }
  return best;
}

std::optional<Loop> find_step_loop(const Function& f) {
  const std::vector<Loop> loops = step_loop_candidates(f);
  if (loops.empty()) return std::nullopt;
  return loops.front();
}

std::size_t branches_within(const Function& f, const Loop& loop) {
  const unsigned first = f.code[loop.first].address, last = f.code[loop.last].address;
  return static_cast<std::size_t>(std::count_if(
      f.code.begin() + loop.first, f.code.begin() + loop.last, [&](const Instruction& x) {
        return x.branch_target && *x.branch_target > x.address && *x.branch_target <= last &&
               *x.branch_target >= first;
      }));
}

InstrMix mix_of(const Function& f, const Loop& loop) {
  const int arch = arch_number(f.arch);
  InstrMix m;
  for (std::size_t i = loop.first; i <= loop.last; ++i) {
    switch (classify(arch, f.code[i].base())) {
      case PipeClass::Fma: m.fma += 1; break;
      case PipeClass::Alu: m.alu += 1; break;
      case PipeClass::Xu: m.xu += 1; break;
      case PipeClass::Fp64: m.fp64 += 1; break;
      case PipeClass::Lsu: m.lsu += 1; break;
      case PipeClass::Other: m.other += 1; break;
    }
  }
  return m;
}

}  // namespace mp::sass
