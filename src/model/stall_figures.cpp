#include "model/stall_figures.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace mp {
namespace {

// What each state means, in the words of docs/model.md#glossary. Labels are CUPTI's names past
// "..._issue_stalled_", underscores as spaces.
constexpr std::pair<std::string_view, std::string_view> kMeanings[] = {
    {"selected",
     "The warp issued an instruction in the sampled cycle: the slot was used (by this warp)."},
    {"not selected",
     "The warp was ready, but its scheduler issued another warp's instruction that cycle: the "
     "slot was used, by another warp."},
    {"dispatch stall",
     "The warp's next instruction was ready and picked, but the dispatch held it back that "
     "cycle (a conflict on the way to its pipe, such as register-file read ports)."},
    {"math pipe throttle",
     "The pipe the next instruction needs (FMA, ALU, XU, FP64) was not taking another one yet: "
     "the pipe is the limit."},
    {"wait",
     "A fixed wait the compiler set on the previous instruction (its stall count): the result of "
     "a fixed-latency instruction, FMA or ALU, is not ready yet."},
    {"short scoreboard",
     "Waiting for a result of variable latency from inside the SM: shared memory, the XU "
     "(MUFU), some conversions."},
    {"long scoreboard",
     "Waiting for a result from memory through L1TEX: a global, local or texture load."},
    {"branch resolving",
     "Waiting for a branch's target to be worked out and the warp's program counter set."},
    {"no instructions",
     "No instruction had been fetched for the warp yet: an instruction-cache miss, or just "
     "after a jump."},
    {"barrier", "Waiting at a barrier (__syncthreads) for the other warps of its block."},
    {"membar", "Waiting at a memory barrier for earlier memory operations to be visible."},
    {"drain", "After EXIT, waiting for its stores to leave before its resources are freed."},
    {"imc miss", "Waiting for a constant-memory read that missed the immediate constant cache."},
    {"lg throttle", "The queue of local and global memory instructions was full."},
    {"mio throttle",
     "The queue to the SM's shared units (shared memory, XU, some branches) was full."},
    {"tex throttle", "The texture unit's queue was full."},
    {"sleeping", "The warp's threads were asleep (nanosleep) or had all reached a yield."},
    {"misc", "A reason the hardware counts apart from the named ones."},
    {"gmma", "Waiting for a warpgroup matrix multiply (Hopper's wgmma)."},
    {"warpgroup arrive",
     "Waiting at a WARPGROUP.ARRIVES or WARPGROUP.WAIT instruction, for the other warps of its "
     "warpgroup (Hopper)."},
};

// CUPTI's prefix before the state's own name.
constexpr std::string_view kPrefix = "issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Shares of `total`, most samples first (ties by label, so that the order is the same each time).
void finish(std::vector<ReasonShare>& v, std::uint64_t total) {
  v.erase(std::remove_if(v.begin(), v.end(), [](const ReasonShare& r) { return r.samples == 0; }),
          v.end());
  for (ReasonShare& r : v) r.share = total ? static_cast<double>(r.samples) / total : 0;
  std::sort(v.begin(), v.end(), [](const ReasonShare& a, const ReasonShare& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.label < b.label;
  });
}

// Per label over `pcs`: the reasons' samples and not-issued parts.
std::vector<ReasonShare> by_label(const StallFigures& f, const std::vector<const PcSamples*>& pcs) {
  std::map<std::string, ReasonShare> m;
  for (const PcSamples* p : pcs)
    for (std::size_t i = 0; i < f.reasons.size() && i < p->by_reason.size(); ++i) {
      ReasonShare& r = m[f.reasons[i].label];
      r.label = f.reasons[i].label;
      (f.reasons[i].not_issued ? r.not_issued : r.samples) += p->by_reason[i];
    }
  std::vector<ReasonShare> v;
  for (auto& [label, r] : m) v.push_back(r);
  return v;
}

std::string percent(double share) {
  char buf[16];
  // Under 10%, a decimal: the small reasons of a loop line are what tells lines apart.
  std::snprintf(buf, sizeof buf, share < 0.1 ? "%.1f%%" : "%.0f%%", 100 * share);
  return buf;
}

}  // namespace

StallReason stall_reason(std::string_view cupti_name) {
  StallReason r;
  r.cupti_name = std::string(cupti_name);
  std::string_view s = cupti_name;
  if (const std::size_t at = s.find(kPrefix); at != std::string_view::npos)
    s = s.substr(at + kPrefix.size());
  else if (const std::size_t dunder = s.rfind("__"); dunder != std::string_view::npos)
    s = s.substr(dunder + 2);
  if (ends_with(s, kNotIssued)) {
    r.not_issued = true;
    s = s.substr(0, s.size() - kNotIssued.size());
  }
  r.label = std::string(s);
  std::replace(r.label.begin(), r.label.end(), '_', ' ');
  // CUPTI has spelt this one both ways.
  if (r.label == "no instruction") r.label = "no instructions";
  return r;
}

std::string_view stall_meaning(std::string_view label) {
  for (const auto& [name, meaning] : kMeanings)
    if (name == label) return meaning;
  return {};
}

const std::vector<std::string_view>& known_stall_labels() {
  static const std::vector<std::string_view> labels = [] {
    std::vector<std::string_view> v;
    for (const auto& [name, meaning] : kMeanings) v.push_back(name);
    return v;
  }();
  return labels;
}

bool is_stall(std::string_view label) {
  return label != "selected" && label != "not selected";
}

std::uint64_t StallFigures::samples(const PcSamples& p) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < reasons.size() && i < p.by_reason.size(); ++i)
    if (!reasons[i].not_issued) n += p.by_reason[i];
  return n;
}

std::uint64_t StallFigures::not_issued(const PcSamples& p) const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < reasons.size() && i < p.by_reason.size(); ++i)
    if (reasons[i].not_issued) n += p.by_reason[i];
  return n;
}

std::uint64_t StallFigures::samples_in(std::string_view function) const {
  std::uint64_t n = 0;
  for (const PcSamples& p : pcs)
    if (function.empty() || p.function == function) n += samples(p);
  return n;
}

void StallFigures::merge(const StallFigures& o) {
  // The other's reasons by name into ours (a reading of another context may number them apart).
  std::vector<std::size_t> to(o.reasons.size());
  for (std::size_t i = 0; i < o.reasons.size(); ++i) {
    const auto it = std::find_if(reasons.begin(), reasons.end(), [&](const StallReason& r) {
      return r.cupti_name == o.reasons[i].cupti_name;
    });
    to[i] = static_cast<std::size_t>(it - reasons.begin());
    if (it == reasons.end()) reasons.push_back(o.reasons[i]);
  }
  for (PcSamples& p : pcs) p.by_reason.resize(reasons.size());
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> at;
  for (std::size_t i = 0; i < pcs.size(); ++i) at[{pcs[i].function, pcs[i].pc_offset}] = i;
  for (const PcSamples& q : o.pcs) {
    const auto key = std::make_pair(q.function, q.pc_offset);
    auto it = at.find(key);
    if (it == at.end()) {
      it = at.emplace(key, pcs.size()).first;
      pcs.push_back({q.function, q.pc_offset, std::vector<std::uint64_t>(reasons.size())});
    }
    PcSamples& p = pcs[it->second];
    for (std::size_t i = 0; i < q.by_reason.size() && i < to.size(); ++i)
      p.by_reason[to[i]] += q.by_reason[i];
  }
  cupti_total += o.cupti_total;
  dropped += o.dropped;
  non_user += o.non_user;
  buffer_full = buffer_full || o.buffer_full;
  readings += o.readings;
  if (period_log2 == 0) period_log2 = o.period_log2;
}

const ReasonShare* StallSummary::leading_stall() const {
  for (const ReasonShare& r : reasons)
    if (is_stall(r.label)) return &r;
  return nullptr;
}

double StallSummary::issued_share() const {
  for (const ReasonShare& r : reasons)
    if (r.label == "selected") return r.share;
  return 0;
}

StallSummary summarize(const StallFigures& f, std::string_view function) {
  std::vector<const PcSamples*> pcs;
  for (const PcSamples& p : f.pcs)
    if (function.empty() || p.function == function) pcs.push_back(&p);
  StallSummary s;
  for (const PcSamples* p : pcs) {
    s.samples += f.samples(*p);
    s.not_issued += f.not_issued(*p);
  }
  s.reasons = by_label(f, pcs);
  finish(s.reasons, s.samples);
  return s;
}

ListingStalls attribute_to_lines(const StallFigures& f, std::string_view function,
                                 const std::vector<sass::Instruction>& lines) {
  ListingStalls out;
  std::map<std::uint64_t, const PcSamples*> by_offset;
  for (const PcSamples& p : f.pcs) {
    const std::uint64_t n = f.samples(p);
    out.all_samples += n;
    if (p.function != function) continue;
    out.function_samples += n;
    by_offset[p.pc_offset] = &p;
  }
  std::vector<const PcSamples*> listed;
  for (const sass::Instruction& i : lines) {
    LineStalls l;
    l.address = i.address;
    if (const auto it = by_offset.find(i.address); it != by_offset.end()) {
      l.samples = f.samples(*it->second);
      l.reasons = by_label(f, {it->second});
      finish(l.reasons, l.samples);
      listed.push_back(it->second);
      out.over_lines.not_issued += f.not_issued(*it->second);
    }
    l.share = out.function_samples ? static_cast<double>(l.samples) / out.function_samples : 0;
    out.on_lines += l.samples;
    out.lines.push_back(std::move(l));
  }
  out.over_lines.samples = out.on_lines;
  out.over_lines.reasons = by_label(f, listed);
  finish(out.over_lines.reasons, out.on_lines);
  return out;
}

std::string kernel_name(std::string_view mangled) {
  const std::string m(mangled);
  int status = 0;
  char* d = abi::__cxa_demangle(m.c_str(), nullptr, nullptr, &status);
  if (!d || status != 0) {
    std::free(d);
    return m;
  }
  std::string s = d;
  std::free(d);
  // The parameters: from the last '(' at the top level of template brackets.
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0 && s.compare(i, 21, "(anonymous namespace)") != 0) {
      s.erase(i);
      break;
    }
  }
  if (s.compare(0, 5, "void ") == 0) s.erase(0, 5);
  for (const std::string_view noise : {"(anonymous namespace)::", "variants::", "mp::"})
    for (std::size_t at; (at = s.find(noise)) != std::string::npos;) s.erase(at, noise.size());
  return s;
}

std::string leading_stall_text(const StallSummary& s) {
  if (s.samples == 0) return "no samples";
  const ReasonShare* r = s.leading_stall();
  if (!r) return "no stalls sampled";
  return r->label + " " + percent(r->share) + " of samples";
}

std::string stall_column_text(const LineStalls& l, int reasons) {
  if (l.samples == 0) return "     -";
  char share[16];
  std::snprintf(share, sizeof share, "%5.1f%%", 100 * l.share);
  std::string s = share;
  for (int i = 0; i < reasons && i < static_cast<int>(l.reasons.size()); ++i)
    s += (i ? ", " : "  ") + l.reasons[i].label + " " + percent(l.reasons[i].share);
  return s;
}

}  // namespace mp
