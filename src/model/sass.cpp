#include "sass.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

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

PipeClass classify(std::string_view base) {
  // Volta to Hopper. Uniform-datapath (U*) instructions, memory, control and special
  // registers occupy an issue slot but none of the four modelled pipes.
  static const std::map<std::string_view, PipeClass> table = {
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
      {"HFMA2", PipeClass::Fma},
      {"HADD2", PipeClass::Fma},
      {"HMUL2", PipeClass::Fma},
      {"FSWZADD", PipeClass::Fma},
      {"IDP", PipeClass::Fma},
      // sm_90's integer add: ncu counts it on the FMA pipe (sm__inst_executed_pipe_fma).
      {"VIADD", PipeClass::Fma},
      {"IADD3", PipeClass::Alu},
      {"IADD", PipeClass::Alu},
      {"ISETP", PipeClass::Alu},
      {"FSETP", PipeClass::Alu},
      {"LOP3", PipeClass::Alu},
      {"LOP", PipeClass::Alu},
      {"SHF", PipeClass::Alu},
      {"SHL", PipeClass::Alu},
      {"SHR", PipeClass::Alu},
      {"SEL", PipeClass::Alu},
      {"FSEL", PipeClass::Alu},
      {"IABS", PipeClass::Alu},
      {"PLOP3", PipeClass::Alu},
      {"FMNMX", PipeClass::Alu},
      {"IMNMX", PipeClass::Alu},
      {"VIMNMX", PipeClass::Alu},
      {"LEA", PipeClass::Alu},
      {"P2R", PipeClass::Alu},
      {"R2P", PipeClass::Alu},
      {"FSET", PipeClass::Alu},
      {"ISET", PipeClass::Alu},
      {"PRMT", PipeClass::Alu},
      {"MOV", PipeClass::Alu},
      {"BMSK", PipeClass::Alu},
      {"SGXT", PipeClass::Alu},
      {"FCHK", PipeClass::Alu},
      {"HSETP2", PipeClass::Alu},
      {"HMNMX2", PipeClass::Alu},
      {"MUFU", PipeClass::Xu},
      {"F2I", PipeClass::Xu},
      {"I2F", PipeClass::Xu},
      {"F2F", PipeClass::Xu},
      {"FRND", PipeClass::Xu},
      {"I2FP", PipeClass::Alu},
      {"F2IP", PipeClass::Alu},
      {"POPC", PipeClass::Xu},
      {"FLO", PipeClass::Xu},
      {"BREV", PipeClass::Xu},
      {"DFMA", PipeClass::Fp64},
      {"DADD", PipeClass::Fp64},
      {"DMUL", PipeClass::Fp64},
      {"DSETP", PipeClass::Fp64},
      {"DMNMX", PipeClass::Fp64},
  };
  const auto it = table.find(base);
  return it == table.end() ? PipeClass::Other : it->second;
}

bool fma_heavy_only(std::string_view base) {
  return base == "IMAD" || base == "IMAD32I" || base == "IMUL" || base == "IMUL32I" ||
         base == "IDP" || base == "VIADD";
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
  InstrMix m;
  for (std::size_t i = loop.first; i <= loop.last; ++i) {
    switch (classify(f.code[i].base())) {
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
