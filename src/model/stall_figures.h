// Why warps did not issue, per SASS instruction: what CUPTI's PC sampling saw over a reading
// (each sample: one warp, the instruction it was at, and its state that cycle), attributed to the
// lines of a listing and summed per stall reason. Plain data and arithmetic; the CUPTI source
// behind it lives in src/counters/pc_sampler.*.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/sass.h"

namespace mp {

// A warp state PC sampling can report, as CUPTI names it and as mandelpipe shows it.
struct StallReason {
  std::string cupti_name;   // "smsp__pcsamp_warps_issue_stalled_dispatch_stall"
  std::string label;        // "dispatch stall"
  bool not_issued = false;  // "..._not_issued": those of label's samples taken in a cycle in
                            // which the warp's scheduler issued nothing (a lost slot)
};
StallReason stall_reason(std::string_view cupti_name);

// What a reason means, one or two sentences for the glossary (docs/model.md#glossary says the
// same); empty for a reason this program has no words for.
std::string_view stall_meaning(std::string_view label);
// The labels stall_meaning knows, in the glossary's order.
const std::vector<std::string_view>& known_stall_labels();
// "selected" and "not selected": the warp issued, or was ready while another warp issued; every
// other state is a stall.
bool is_stall(std::string_view label);

// The samples of one SASS instruction: per reason, by the index of StallFigures::reasons.
struct PcSamples {
  std::string function;  // mangled, as the SASS names it
  std::uint64_t pc_offset = 0;
  std::vector<std::uint64_t> by_reason;
};

// One reading's samples (or several readings', merged).
struct StallFigures {
  std::vector<StallReason> reasons;
  std::vector<PcSamples> pcs;
  // CUPTI's counts over the readings: every sample taken (those of kernels that are not the
  // program's and those dropped included), the dropped ones, the other kernels'.
  std::uint64_t cupti_total = 0, dropped = 0, non_user = 0;
  bool buffer_full = false;  // the hardware buffer filled: samples were lost
  int readings = 0;
  int period_log2 = 0;  // 2^n cycles between samples of an SM; 0: CUPTI's own choice

  // Samples of the instruction `p` (its reasons that are not a not-issued part, summed).
  std::uint64_t samples(const PcSamples& p) const;
  std::uint64_t not_issued(const PcSamples& p) const;
  // Every sample with a PC, or those of `function` only.
  std::uint64_t samples_in(std::string_view function = {}) const;
  // Adds `o`'s samples (same reasons, by name) and counts.
  void merge(const StallFigures& o);
};

struct ReasonShare {
  std::string label;
  std::uint64_t samples = 0, not_issued = 0;
  double share = 0;  // of the samples summed over (0..1)
};

// Samples per reason over a function's instructions (every function: empty), most first.
struct StallSummary {
  std::uint64_t samples = 0, not_issued = 0;
  std::vector<ReasonShare> reasons;
  // The most sampled state that is a stall (is_stall), or null.
  const ReasonShare* leading_stall() const;
  // The samples of the warps that issued ("selected"), 0..1.
  double issued_share() const;
};
StallSummary summarize(const StallFigures& f, std::string_view function = {});

// One listed instruction's samples.
struct LineStalls {
  unsigned address = 0;
  std::uint64_t samples = 0;
  double share = 0;                  // of the function's samples (0..1)
  std::vector<ReasonShare> reasons;  // shares of the line's samples, most first
};

// A listing's lines (the step loop) and its function's samples around them.
struct ListingStalls {
  std::uint64_t function_samples = 0;  // of the listing's function, every instruction
  std::uint64_t all_samples = 0;       // of every function the reading saw
  std::uint64_t on_lines = 0;          // of the function, on the listed lines
  std::vector<LineStalls> lines;       // one per listed instruction, in its order
  StallSummary over_lines;             // the listed lines' samples per reason
};
ListingStalls attribute_to_lines(const StallFigures& f, std::string_view function,
                                 const std::vector<sass::Instruction>& lines);

// A kernel's mangled name as a reader knows it: "render_kernel<Fma4X16, false>" (the return type,
// the parameters and the program's namespaces left out); the mangled name where it is not one.
std::string kernel_name(std::string_view mangled);

// The overlay's line: "dispatch stall 13% of samples"; "no samples" where there are none and
// "no stalls sampled" where every warp seen issued or was ready.
std::string leading_stall_text(const StallSummary& s);
// The SASS view's column for a line: its share of the function's samples and its leading
// `reasons` reasons with their shares of its samples: " 12.3%  dispatch stall 61%, selected 25%".
std::string stall_column_text(const LineStalls& l, int reasons = 2);

}  // namespace mp
