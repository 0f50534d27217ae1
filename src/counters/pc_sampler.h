// Why warps did not issue, live: CUPTI's PC sampling over measured launches. Each reading is one
// range of sampling (cuptiPCSamplingStart before the launch, Stop after it), whose records give,
// per SASS instruction, how often a warp was seen there and in which state. Never in a process
// with PM sampling: on the H100 CUPTI 13 refused PC sampling's start while PM sampling was
// enabled and crashed where PM sampling was configured after PC sampling had been enabled
// (docs/measurements.md), so the window and bench run one or the other.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "counters/cupti_api.h"
#include "counters/cupti_handles.h"
#include "model/counter_figures.h"
#include "model/stall_figures.h"

namespace mp::counters {

struct PcSamplerOptions {
  int device_index = 0;
  // 2^n cycles of an SM between its samples, 5..31.
  int period_log2 = 17;
  std::optional<Fault> fault;  // tests: fail at this step
  std::string library;         // tests: the CUPTI library to open instead of the toolkit's
  std::function<void(const std::string&)> trace;  // diagnostics: each reading, one line
  // Every reading's records as CUPTI handed them over, appended to this file in the text form
  // tests/fixtures/stalls/ holds (recorded on the GPU machine: scripts/device/counters.sh stalls).
  std::string record_to;
};

// Adds one buffer of CUPTI's records to `into`: `reason_index` gives CUPTI's index of each of
// into->reasons, in order. CUPTI's counts (every sample, the dropped, other kernels') are added
// where `counts` (once a range: a range read in several buffers repeats them).
void add_records(const CUpti_PCSamplingData& data, const std::vector<std::uint32_t>& reason_index,
                 bool counts, StallFigures* into);
// The same buffer as text, a line a record (the format tests/fixtures/stalls/ holds).
std::string records_text(const CUpti_PCSamplingData& data);

class PcSampler final : public CounterProbe {
 public:
  // Never throws: where PC sampling cannot be had, unavailable() says why in one line.
  explicit PcSampler(const PcSamplerOptions& o, std::unique_ptr<Cupti> cupti = nullptr);
  ~PcSampler() override;
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  std::string unavailable() const override;
  // Starts a range of sampling.
  std::uint64_t begin() override;
  // Stops the range and reads its records (on this thread: a few hundred PCs).
  void end(std::uint64_t launch, double sm_cycles) override;
  std::optional<CounterFigures> take(std::uint64_t launch, bool wait) override;

  // "CUPTI PC sampling: a warp every 2^17 cycles of each SM, 19 warp states".
  std::string description() const;
  // Every step at which CUPTI (or the driver) can refuse, in order (tests).
  static const std::vector<const char*>& steps();

 private:
  bool start_up();
  void fail(const char* step, CUptiResult r);
  // The records of the range just stopped.
  StallFigures read_range();

  PcSamplerOptions opts_;
  std::unique_ptr<Cupti> cupti_;
  mutable std::mutex mutex_;
  std::string unavailable_;
  std::vector<StallReason> reasons_;
  std::vector<std::uint32_t> reason_index_;  // CUPTI's index of each of reasons_
  // Buffers CUPTI fills: one per read (ours), one it fills as sampling is disabled.
  struct Buffer {
    CUpti_PCSamplingData data{};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<CUpti_PCSamplingStallReason> reasons;
    void allocate(std::size_t pcs_wanted, std::size_t reasons_each);
  };
  Buffer read_, at_disable_;
  // Function names CUPTI allocated for the records (shared between records, ours to free once
  // sampling is disabled).
  std::set<char*> names_;
  std::uint64_t next_id_ = 0, current_ = 0;
  std::map<std::uint64_t, CounterFigures> results_;
  int readings_ = 0;
  // In the order they are given back: the range stops, sampling is disabled, the context goes.
  std::optional<PrimaryContext> context_;
  std::optional<PcSamplingSession> session_;
  std::optional<PcSamplingRange> range_;
};

}  // namespace mp::counters
