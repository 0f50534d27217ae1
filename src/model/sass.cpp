#include "sass.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "model/cc_table.h"

namespace mp::sass {
namespace {

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

bool is_branch(const std::string& base) {
  return base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX";
}

}  // namespace

std::vector<Function> parse_cuobjdump(std::string_view text) {
  static const std::regex arch_re(R"(code for (sm_\d+[a-z]?))");
  static const std::regex func_re(R"(Function\s*:\s*(\S+))");
  static const std::regex instr_re(R"(^\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;)");
  static const std::regex label_re(R"(^\s*(\.L_[A-Za-z0-9_]+):)");
  static const std::regex hex_target_re(R"(0x([0-9a-fA-F]+))");
  static const std::regex label_target_re(R"((\.L_[A-Za-z0-9_]+))");

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
  std::istringstream in{std::string(text)};
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, arch_re)) {
      arch = m[1];
      continue;
    }
    if (std::regex_search(line, m, func_re)) {
      resolve();
      out.push_back({arch, m[1], {}});
      continue;
    }
    if (out.empty()) continue;
    if (std::regex_search(line, m, label_re)) {
      waiting_labels.push_back(m[1]);
      continue;
    }
    if (!std::regex_search(line, m, instr_re)) continue;
    Instruction ins;
    ins.address = static_cast<unsigned>(std::stoul(m[1], nullptr, 16));
    for (const std::string& l : waiting_labels) labels[l] = ins.address;
    waiting_labels.clear();
    std::string body = trim(m[2]);
    if (!body.empty() && body[0] == '@') {
      const auto sp = body.find(' ');
      ins.predicate = body.substr(0, sp);
      body = trim(body.substr(sp));
    }
    const auto sp = body.find(' ');
    ins.opcode = body.substr(0, sp);
    ins.operands = sp == std::string::npos ? "" : trim(body.substr(sp));
    if (is_branch(ins.base())) {
      std::smatch t;
      if (std::regex_search(ins.operands, t, label_target_re))
        pending.emplace_back(out.back().code.size(), t[1]);
      else if (std::regex_search(ins.operands, t, hex_target_re))
        ins.branch_target = static_cast<unsigned>(std::stoul(t[1], nullptr, 16));
    }
    out.back().code.push_back(std::move(ins));
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
// (U*) instructions, memory, control and special registers take an issue slot but none of the
// four modelled pipes, so no table names them and they count as Other.
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

const ArchTable& arch_table(int sm) {
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
  return nearest_cc_row(tables, sm / 10, sm % 10, "SASS pipe table");
}

}  // namespace

int sm_of(std::string_view arch) {
  static const std::regex re(R"(sm_(\d{2,3})[a-z]?)");
  std::cmatch m;
  return std::regex_match(arch.data(), arch.data() + arch.size(), m, re) ? std::stoi(m[1].str())
                                                                         : 0;
}

std::optional<PipeClass> table_pipe(int sm, std::string_view base) {
  const auto& pipes = arch_table(sm).pipes;
  const auto it = pipes.find(base);
  if (it == pipes.end()) return std::nullopt;
  return it->second;
}

PipeClass classify(int sm, std::string_view base) {
  return table_pipe(sm, base).value_or(PipeClass::Other);
}

bool fma_heavy_only(int sm, std::string_view base) {
  return arch_table(sm).heavy_only.count(base) > 0;
}

std::string mangled_variant(std::string_view variant_type) {
  return "variants" + std::to_string(variant_type.size()) + std::string(variant_type) + "E";
}

const Function* find_render_kernel(const std::vector<Function>& functions, std::string_view mangled,
                                   bool recording) {
  const std::string_view flag = recording ? "Lb1E" : "Lb0E";  // the bool template argument
  for (const Function& f : functions)
    if (f.name.find("render_kernel") != std::string::npos &&
        f.name.find(mangled) != std::string::npos && f.name.find(flag) != std::string::npos)
      return &f;
  return nullptr;
}

std::vector<Loop> step_loop_candidates(const Function& f) {
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < f.code.size(); ++i) {
    const Instruction& br = f.code[i];
    if (!br.branch_target || *br.branch_target > br.address) continue;
    const auto first = std::find_if(f.code.begin(), f.code.end(), [&](const Instruction& x) {
      return x.address == *br.branch_target;
    });
    if (first != f.code.end())
      loops.push_back({static_cast<std::size_t>(first - f.code.begin()), i});
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
  // (or a copy of it that ptxas made for a case that never has steps).
  auto touches_memory = [&](const Loop& l) {
    return std::any_of(
        f.code.begin() + l.first, f.code.begin() + l.last + 1, [](const Instruction& x) {
          static const std::set<std::string> memory = {"ST",   "STG",   "STS",   "STL", "LDG",
                                                       "ATOM", "ATOMG", "ATOMS", "RED", "REDG"};
          return memory.count(x.base()) > 0;
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

InstrMix mix_of(const Function& f, const Loop& loop) {
  const int sm = sm_of(f.arch);
  InstrMix m;
  for (std::size_t i = loop.first; i <= loop.last; ++i) {
    switch (classify(sm, f.code[i].base())) {
      case PipeClass::Fma: m.fma += 1; break;
      case PipeClass::Alu: m.alu += 1; break;
      case PipeClass::Xu: m.xu += 1; break;
      case PipeClass::Fp64: m.fp64 += 1; break;
      case PipeClass::Other: m.other += 1; break;
    }
  }
  return m;
}

}  // namespace mp::sass
