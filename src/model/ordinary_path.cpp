#include "model/ordinary_path.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "floatexp.h"

namespace mp {
namespace {

// What the walk knows of a register: a constant, a value computed from the pixel's numbers
// (ordinary: an integer near 0 whatever constants it was offset by, a double of 1), or nothing
// it can use. A constant far from 0 (FloatExp's zero exponent) stays far through the sums and
// the minimum it takes part in.
enum class Kind { Known, Ordinary, Unknown };
struct Value {
  Kind kind = Kind::Unknown;
  long long v = 0;
  bool is_double = false;
  double d = 0;
};

constexpr int kMaxPaths = 4096;
constexpr long long kFar = 1 << 20;  // beyond any exponent of a double, biased or not
bool far(const Value& v) {
  return v.kind == Kind::Known && (v.v >= kFar || v.v <= -kFar);
}

std::vector<std::string> split_operands(const std::string& ops) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : ops) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (ch != ' ' || !cur.empty()) cur += ch;
  }
  if (!cur.empty()) out.push_back(cur);
  for (std::string& s : out) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    const std::size_t reuse = s.find(".reuse");
    if (reuse != std::string::npos) s.erase(reuse);
  }
  return out;
}

bool is_register(const std::string& s) {
  return s.size() > 1 && (s[0] == 'R' || (s[0] == 'U' && s[1] == 'R')) && s != "RZ" && s != "URZ";
}
bool is_predicate(const std::string& s) {
  const std::string p = s[0] == '!' ? s.substr(1) : s;
  return p == "PT" ||
         (p.size() > 1 && p[0] == 'P' && std::isdigit(static_cast<unsigned char>(p[1])));
}
std::string next_register(const std::string& r) {
  const std::size_t digits = r.find_first_of("0123456789");
  return r.substr(0, digits) + std::to_string(std::atoi(r.c_str() + digits) + 1);
}

struct State {
  std::map<std::string, Value> regs;
  std::map<std::string, std::optional<bool>> preds;
};

class Walker {
 public:
  Walker(const sass::Function& f, std::size_t first, std::size_t end,
         const std::vector<unsigned>& zero_params, unsigned zero_case, std::vector<bool>& read)
      : f_(f), first_(first), end_(end), zero_params_(zero_params), case_(zero_case), read_(read) {}

  // Straight through [0, first): what the kernel sets before the stretch.
  void prologue(State& s) {
    for (std::size_t i = 0; i < first_; ++i) execute(s, f_.code[i], false);
  }
  // Every path from `first` to `end` (or out of the stretch); false past kMaxPaths.
  bool walk(State s, std::size_t i, std::vector<unsigned>& reached) {
    return path(std::move(s), i, reached);
  }

 private:
  bool path(State s, std::size_t i, std::vector<unsigned>& reached) {
    if (++paths_ > kMaxPaths) return false;
    while (i >= first_ && i < end_) {
      const sass::Instruction& x = f_.code[i];
      reached[i - first_] |= 1u << case_;
      const std::string base = x.base();
      const std::optional<bool> on = predicate_of(s, x.predicate);
      // BRA.DIV: taken only by a diverged warp (sm_75's shuffles), which a warp entering the
      // set-up whole is not.
      if (x.opcode == "BRA.DIV") {
        ++i;
        continue;
      }
      if (base == "BRA" || base == "BRX" || base == "JMP" || base == "JMX") {
        if (!x.branch_target) return true;
        const std::size_t to = index_at(*x.branch_target);
        const bool two_predicates = is_predicate(split_operands(x.operands).front());
        if (x.predicate.empty() && !two_predicates) {
          i = to;
          continue;
        }
        if (on && !two_predicates) {
          i = *on ? to : i + 1;
          continue;
        }
        if (!path(s, to, reached)) return false;
        ++i;
        continue;
      }
      if ((base == "EXIT" || base == "RET") && x.predicate.empty()) return true;
      execute(s, x, true);
      ++i;
    }
    return true;
  }

  std::size_t index_at(unsigned address) const {
    for (std::size_t j = 0; j < f_.code.size(); ++j)
      if (f_.code[j].address == address) return j;
    return f_.code.size();
  }

  std::optional<bool> predicate_of(const State& s, const std::string& p) const {
    if (p.empty()) return true;
    const bool negate = p.size() > 1 && p[1] == '!';
    const std::string name = p.substr(negate ? 2 : 1);
    if (name == "PT") return !negate;
    const auto it = s.preds.find(name);
    if (it == s.preds.end() || !it->second) return std::nullopt;
    return negate ? !*it->second : *it->second;
  }

  Value operand(const State& s, std::string o) {
    bool negate = false;
    if (!o.empty() && o[0] == '-') {
      negate = true;
      o.erase(0, 1);
    }
    if (!o.empty() && o[0] == '|') o = o.substr(1, o.size() - 2);
    Value v;
    if (o == "RZ" || o == "URZ" || o == "SRZ") {
      v.kind = Kind::Known;
    } else if (o.rfind("c[0x0][", 0) == 0) {
      const unsigned at = static_cast<unsigned>(std::strtoul(o.c_str() + 7, nullptr, 16));
      for (std::size_t k = 0; k < zero_params_.size(); ++k)
        if (zero_params_[k] == at) {
          read_[k] = true;
          if (case_ >> k & 1) {
            v.kind = Kind::Known;
            v.v = kZeroExp;
          }
        }
    } else if (is_register(o)) {
      const auto it = s.regs.find(o);
      if (it != s.regs.end()) v = it->second;
    } else if (o.rfind("0x", 0) == 0 ||
               (!o.empty() && std::isdigit(static_cast<unsigned char>(o[0])))) {
      v.kind = Kind::Known;
      const bool fraction = o.find_first_of(".e") != std::string::npos && o.rfind("0x", 0) != 0;
      v.is_double = fraction;
      v.d = std::strtod(o.c_str(), nullptr);
      // A hexadecimal immediate is a 32-bit word: 0xfffffc01 is -1023.
      v.v = fraction ? 0 : static_cast<std::int32_t>(std::strtoull(o.c_str(), nullptr, 0));
    } else if (o == "+INF" || o == "INF") {
      v = {Kind::Known, 0, true, 1e308 * 10};
    }
    if (negate) {
      v.v = -v.v;
      v.d = -v.d;
    }
    return v;
  }

  // The register(s) an instruction writes: a 64-bit result writes a pair.
  void write(State& s, const sass::Instruction& x, const std::string& dest, const Value& v) {
    s.regs[dest] = v;
    const std::string& op = x.opcode;
    const bool wide = op.find(".64") != std::string::npos || op.find("F64") != std::string::npos ||
                      x.base() == "DADD" || x.base() == "DMUL" || x.base() == "DFMA" ||
                      x.base() == "CS2R" || op.rfind("IMAD.WIDE", 0) == 0;
    if (wide) s.regs[next_register(dest)] = v;
  }

  void execute(State& s, const sass::Instruction& x, bool decide) {
    const std::vector<std::string> ops = split_operands(x.operands);
    if (ops.empty()) return;
    const std::string base = x.base();
    const std::optional<bool> on = decide ? predicate_of(s, x.predicate) : std::nullopt;
    if (on && !*on) return;
    const bool sure = on.has_value();
    if (base == "ISETP" || base == "DSETP" || base == "FSETP") {
      if (ops.size() < 4) return;
      std::optional<bool> r = sure ? compare(s, x, ops) : std::nullopt;
      s.preds[ops[0]] = r;
      if (ops[1] != "PT") s.preds[ops[1]] = std::nullopt;
      return;
    }
    if (is_predicate(ops[0])) {  // PLOP3, LOP3 with a predicate out, R2P: not followed
      s.preds[ops[0]] = std::nullopt;
      return;
    }
    if (!is_register(ops[0])) return;  // stores, barriers
    Value v;
    if (sure) v = evaluate(s, x, ops);
    write(s, x, ops[0], v);
  }

  Value evaluate(const State& s, const sass::Instruction& x, const std::vector<std::string>& ops) {
    const std::string base = x.base();
    const std::string& op = x.opcode;
    std::vector<Value> in;
    for (std::size_t k = 1; k < ops.size(); ++k)
      if (!is_predicate(ops[k])) in.push_back(operand(s, ops[k]));
    // Floating-point results are the pixel's numbers.
    static const char* floating[] = {"DADD", "DMUL", "DFMA", "FADD", "FMUL", "FFMA",
                                     "I2F",  "F2F",  "MUFU", "I2FP", "F2I"};
    for (const char* fl : floating)
      if (base == fl) return {Kind::Ordinary, 0, true, 1};
    if (base == "CS2R" && ops.size() > 1 && ops[1] == "SRZ") return {Kind::Known, 0, false, 0};
    if (base == "S2R" || base == "S2UR" || base == "CS2R") return {};
    const bool any_ordinary =
        std::any_of(in.begin(), in.end(), [](const Value& v) { return v.kind == Kind::Ordinary; });
    const bool all_known = !in.empty() && std::all_of(in.begin(), in.end(), [](const Value& v) {
      return v.kind == Kind::Known;
    });
    const Value ordinary{any_ordinary ? Kind::Ordinary : Kind::Unknown, 0, false, 1};
    // Moves, and loads of a parameter (a 64-bit one is not an exponent).
    if (op.rfind("IMAD.MOV", 0) == 0 || base == "MOV" || base == "UMOV" ||
        ((base == "ULDC" || base == "LDC") && op.find(".64") == std::string::npos))
      return in.empty() ? Value{} : in.back();
    if (base == "VIMNMX" && in.size() >= 2) {
      const bool max = ops.back() == "!PT";
      if (all_known)
        return {Kind::Known, max ? std::max(in[0].v, in[1].v) : std::min(in[0].v, in[1].v)};
      // A far constant against a value near 0: the minimum is the constant where it lies below,
      // the maximum the other.
      for (int k = 0; k < 2; ++k)
        if (far(in[k]) && (in[k].v < 0) != max) return in[k];
      return in[0].kind == Kind::Ordinary || in[1].kind == Kind::Ordinary ? ordinary
             : !far(in[0]) && in[0].kind == Kind::Known                   ? in[1]
                                                                          : in[0];
    }
    const bool imad_add = op.rfind("IMAD.IADD", 0) == 0;
    if (imad_add || base == "VIADD" || base == "IADD3" || base == "UIADD3") {
      std::vector<Value> terms = in;
      if (imad_add && terms.size() == 3) terms.erase(terms.begin() + 1);  // a * 1 + c
      long long sum = 0, far_sum = 0;
      bool has_far = false;
      for (const Value& v : terms) {
        sum += v.v;
        if (far(v)) {
          has_far = true;
          far_sum += v.v;
        }
      }
      if (all_known) return {Kind::Known, sum};
      if (has_far) return {Kind::Known, far_sum};
      return ordinary;
    }
    return ordinary;  // a constant the walk does not compute is unknown
  }

  std::optional<bool> compare(const State& s, const sass::Instruction& x,
                              const std::vector<std::string>& ops) {
    if (x.opcode.find(".EX") != std::string::npos) return std::nullopt;
    const Value a = operand(s, ops[2]), b = operand(s, ops[3]);
    // Two registers, or a parameter alone: nothing the pixel's numbers decide.
    const auto usable = [](const Value& v) { return v.kind != Kind::Unknown; };
    if (!usable(a) || !usable(b) ||
        (a.kind == Kind::Ordinary && b.kind == Kind::Ordinary && is_register(ops[2]) &&
         is_register(ops[3])))
      return std::nullopt;
    const std::size_t dot = x.opcode.find('.');
    std::string cmp = x.opcode.substr(dot + 1, x.opcode.find('.', dot + 1) - dot - 1);
    if (cmp.size() == 3 && cmp.back() == 'U') cmp.pop_back();  // unordered: as ordered here
    const auto compare = [&cmp](auto p, auto q) {
      return cmp == "EQ"   ? p == q
             : cmp == "NE" ? p != q
             : cmp == "LT" ? p < q
             : cmp == "LE" ? p <= q
             : cmp == "GT" ? p > q
                           : p >= q;
    };
    const auto as_double = [](const auto& v) {
      return v.kind == Kind::Ordinary ? 1.0 : v.is_double ? v.d : static_cast<double>(v.v);
    };
    const bool r = x.base() == "ISETP" ? compare(a.v, b.v) : compare(as_double(a), as_double(b));
    if (ops.size() < 5 || ops[4] == "PT") return r;
    const std::string c = ops[4][0] == '!' ? ops[4].substr(1) : ops[4];
    const auto it = s.preds.find(c);
    if (it == s.preds.end() || !it->second) return std::nullopt;
    const bool other = ops[4][0] == '!' ? !*it->second : *it->second;
    if (x.opcode.find(".AND") != std::string::npos) return r && other;
    if (x.opcode.find(".OR") != std::string::npos) return r || other;
    if (x.opcode.find(".XOR") != std::string::npos) return r != other;
    return std::nullopt;
  }

  const sass::Function& f_;
  std::size_t first_, end_;
  const std::vector<unsigned>& zero_params_;
  unsigned case_;
  int paths_ = 0;
  std::vector<bool>& read_;
};

}  // namespace

OrdinaryPaths ordinary_paths(const sass::Function& f, std::size_t first, std::size_t end,
                             const std::vector<unsigned>& zero_params) {
  OrdinaryPaths r;
  end = std::min(end, f.code.size());
  if (first >= end) return r;
  r.reached.assign(end - first, 0);
  r.params_read.assign(zero_params.size(), false);
  for (unsigned c = 0; c < (1u << zero_params.size()); ++c) {
    Walker w(f, first, end, zero_params, c, r.params_read);
    State s;
    w.prologue(s);
    if (!w.walk(s, first, r.reached)) r.ok = false;
  }
  return r;
}

}  // namespace mp
