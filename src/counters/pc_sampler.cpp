#include "counters/pc_sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

namespace mp::counters {
namespace {

// PCs a read takes at most: a render kernel has a few thousand instructions, and a range's
// records that do not fit come in the next read.
constexpr std::size_t kPcsPerRead = 4096;
// The hardware buffer, which CUPTI's worker empties while a range runs: 128 MB, where CUPTI's own
// default takes 512 MB of the GPU's memory; where it fills, the figures say so.
constexpr std::size_t kHardwareBuffer = 128u << 20;
// CUPTI's own buffer of decoded records, about 5,500 PCs with every state a MB.
constexpr std::size_t kScratchBuffer = 4u << 20;

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
  CUpti_PCSamplingConfigurationInfo a{};
  a.attributeType = type;
  return a;
}

}  // namespace

void add_records(const CUpti_PCSamplingData& data, const std::vector<std::uint32_t>& reason_index,
                 bool counts, StallFigures* into) {
  std::map<std::uint32_t, std::size_t> at;
  for (std::size_t i = 0; i < reason_index.size(); ++i) at[reason_index[i]] = i;
  StallFigures batch;
  batch.reasons = into->reasons;
  // No more than the buffer holds, whatever the count says.
  const std::size_t n = std::min(data.totalNumPcs, data.collectNumPcs);
  for (std::size_t i = 0; i < n && data.pPcData; ++i) {
    const CUpti_PCSamplingPCData& r = data.pPcData[i];
    PcSamples& p = batch.pcs.emplace_back();
    p.function = r.functionName ? r.functionName : "";
    p.pc_offset = r.pcOffset;
    p.by_reason.assign(batch.reasons.size(), 0);
    for (std::size_t j = 0; j < r.stallReasonCount && r.stallReason; ++j) {
      const auto it = at.find(r.stallReason[j].pcSamplingStallReasonIndex);
      if (it != at.end()) p.by_reason[it->second] += r.stallReason[j].samples;
    }
  }
  // One merge a buffer: a PC twice in it (or already read this range) is added up there.
  into->merge(batch);
  if (!counts) return;
  into->cupti_total += data.totalSamples;
  into->dropped += data.droppedSamples;
  into->non_user += data.nonUsrKernelsTotalSamples;
  into->buffer_full = into->buffer_full || data.hardwareBufferFull;
}

std::string records_text(const CUpti_PCSamplingData& data) {
  std::ostringstream s;
  s << "range " << data.rangeId << " total " << data.totalSamples << " dropped "
    << data.droppedSamples << " non_user " << data.nonUsrKernelsTotalSamples << " full "
    << static_cast<int>(data.hardwareBufferFull) << " pcs " << data.totalNumPcs << " remaining "
    << data.remainingNumPcs << "\n";
  for (std::size_t i = 0; i < std::min(data.totalNumPcs, data.collectNumPcs) && data.pPcData; ++i) {
    const CUpti_PCSamplingPCData& r = data.pPcData[i];
    s << "pc " << std::hex << r.cubinCrc << " " << r.pcOffset << std::dec << " " << r.functionIndex
      << " " << r.stallReasonCount;
    for (std::size_t j = 0; j < r.stallReasonCount && r.stallReason; ++j)
      s << " " << r.stallReason[j].pcSamplingStallReasonIndex << ":" << r.stallReason[j].samples;
    s << " " << (r.functionName ? r.functionName : "?") << "\n";
  }
  return s.str();
}

void PcSampler::Buffer::allocate(std::size_t pcs_wanted, std::size_t reasons_each) {
  pcs.assign(pcs_wanted, CUpti_PCSamplingPCData{});
  reasons.assign(pcs_wanted * reasons_each, CUpti_PCSamplingStallReason{});
  for (std::size_t i = 0; i < pcs_wanted; ++i) {
    pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    pcs[i].stallReason = reasons.data() + i * reasons_each;
  }
  data = CUpti_PCSamplingData{};
  data.size = sizeof(CUpti_PCSamplingData);
  data.collectNumPcs = pcs_wanted;
  data.pPcData = pcs.data();
}

const std::vector<const char*>& PcSampler::steps() {
  static const std::vector<const char*> s = {
      "context", "pc enable", "pc stall reasons", "pc configure", "pc start", "pc stop", "pc data"};
  return s;
}

PcSampler::PcSampler(const PcSamplerOptions& o, std::unique_ptr<Cupti> cupti)
    : opts_(o), cupti_(std::move(cupti)) {
  if (!cupti_) {
    std::string why;
    cupti_ = Cupti::load(&why, opts_.library);
    if (!cupti_) {
      unavailable_ = "Stall reasons (CUPTI PC sampling) unavailable: " + why + "; showing none";
      return;
    }
  }
  cupti_->inject(opts_.fault);
  start_up();
}

PcSampler::~PcSampler() {
  std::lock_guard<std::mutex> lock(mutex_);
  range_.reset();
  // Disabling hands CUPTI's last records to the buffer it was configured with: their names too
  // are ours to free, after it.
  session_.reset();
  for (std::size_t i = 0; i < at_disable_.data.totalNumPcs && i < at_disable_.pcs.size(); ++i)
    names_.insert(at_disable_.pcs[i].functionName);
  names_.erase(nullptr);
  for (char* n : names_) std::free(n);
}

void PcSampler::fail(const char* step, CUptiResult r) {
  if (unavailable_.empty()) unavailable_ = refusal_line(step, r, cupti_->describe(r), Sampler::Pc);
}

bool PcSampler::start_up() {
  const Cupti& c = *cupti_;
  const CuptiFunctions& f = c.functions();
  if (const CUptiResult r = c.injected("context"); r != CUPTI_SUCCESS) {
    fail("context", r);
    return false;
  }
  context_.emplace(c, opts_.device_index);
  if (!context_->get()) {
    unavailable_ =
        "Stall reasons (CUPTI PC sampling) unavailable: " + context_->failure() + "; showing none";
    return false;
  }
  session_.emplace(c, context_->get());
  if (session_->result() != CUPTI_SUCCESS) {
    const CUptiResult r = session_->result();
    session_.reset();
    fail("pc enable", r);
    return false;
  }
  // The states this chip samples: CUPTI's names and its index for each.
  size_t count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams np{};
  np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  np.ctx = context_->get();
  np.numStallReasons = &count;
  CUptiResult r = c.call("pc stall reasons", f.pc_reason_count, &np);
  if (r == CUPTI_SUCCESS && count == 0) r = CUPTI_ERROR_NOT_SUPPORTED;
  if (r != CUPTI_SUCCESS) {
    fail("pc stall reasons", r);
    return false;
  }
  std::vector<std::vector<char>> text(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> names;
  for (auto& t : text) names.push_back(t.data());
  reason_index_.assign(count, 0);
  CUpti_PCSamplingGetStallReasonsParams rp{};
  rp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
  rp.ctx = context_->get();
  rp.numStallReasons = count;
  rp.stallReasonIndex = reason_index_.data();
  rp.stallReasons = names.data();
  r = c.call("pc stall reasons", f.pc_reasons, &rp);
  if (r != CUPTI_SUCCESS) {
    fail("pc stall reasons", r);
    return false;
  }
  for (auto& t : text) {
    t.back() = '\0';
    reasons_.push_back(stall_reason(t.data()));
  }
  read_.allocate(kPcsPerRead, count);
  at_disable_.allocate(kPcsPerRead, count);

  std::vector<CUpti_PCSamplingConfigurationInfo> config;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
  config.back().attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
  config.back().attributeData.enableStartStopControlData.enableStartStopControl = 1;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
  config.back().attributeData.samplingPeriodData.samplingPeriod =
      static_cast<uint32_t>(opts_.period_log2);
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE));
  config.back().attributeData.hardwareBufferSizeData.hardwareBufferSize = kHardwareBuffer;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE));
  config.back().attributeData.scratchBufferSizeData.scratchBufferSize = kScratchBuffer;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
  config.back().attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
  config.back().attributeData.samplingDataBufferData.samplingDataBuffer = &at_disable_.data;
  CUpti_PCSamplingConfigurationInfoParams cp{};
  cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  cp.ctx = context_->get();
  cp.numAttributes = config.size();
  cp.pPCSamplingConfigurationInfo = config.data();
  r = c.call("pc configure", f.pc_configure, &cp);
  // An attribute CUPTI turned down says which, where the call itself does not.
  for (const auto& a : config)
    if (r == CUPTI_SUCCESS && a.attributeStatus != CUPTI_SUCCESS) r = a.attributeStatus;
  if (r != CUPTI_SUCCESS) {
    fail("pc configure", r);
    return false;
  }
  return true;
}

std::string PcSampler::unavailable() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return unavailable_;
}

std::string PcSampler::description() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!unavailable_.empty()) return unavailable_;
  std::size_t states = 0;
  for (const StallReason& r : reasons_) states += !r.not_issued;
  std::string s = "CUPTI PC sampling: a warp every 2^" + std::to_string(opts_.period_log2) +
                  " cycles of each SM, " + std::to_string(states) + " warp states";
  if (states < reasons_.size()) s += " (and the part of each sampled in a cycle nothing issued)";
  return s;
}

std::uint64_t PcSampler::begin() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t id = ++next_id_;
  if (!unavailable_.empty() || !session_) return id;
  range_.reset();  // a reading begun and never ended gives way
  range_.emplace(*cupti_, context_->get());
  if (const CUptiResult r = range_->result(); r != CUPTI_SUCCESS) {
    range_.reset();
    fail("pc start", r);
    return id;
  }
  current_ = id;
  return id;
}

StallFigures PcSampler::read_range() {
  StallFigures f;
  f.reasons = reasons_;
  f.readings = 1;
  f.period_log2 = opts_.period_log2;
  const CuptiFunctions& fn = cupti_->functions();
  std::string record;
  // Several reads where a range's PCs are more than a buffer holds; CUPTI's counts come with
  // each, once for the range.
  for (int round = 0; round < 64; ++round) {
    read_.data.totalNumPcs = read_.data.remainingNumPcs = 0;
    CUpti_PCSamplingGetDataParams gp{};
    gp.size = CUpti_PCSamplingGetDataParamsSize;
    gp.ctx = context_->get();
    gp.pcSamplingData = &read_.data;
    const CUptiResult r = cupti_->call("pc data", fn.pc_data, &gp);
    if (r == CUPTI_ERROR_OUT_OF_MEMORY && read_.data.hardwareBufferFull) {
      f.buffer_full = true;  // its samples are lost; the figures say so
      break;
    }
    if (r != CUPTI_SUCCESS) {
      fail("pc data", r);
      break;
    }
    for (std::size_t i = 0; i < std::min(read_.data.totalNumPcs, read_.pcs.size()); ++i)
      names_.insert(read_.pcs[i].functionName);
    add_records(read_.data, reason_index_, round == 0, &f);
    if (!opts_.record_to.empty()) record += records_text(read_.data);
    if (read_.data.remainingNumPcs == 0) break;
  }
  names_.erase(nullptr);
  if (!opts_.record_to.empty()) {
    std::ofstream out(opts_.record_to, std::ios::app);
    out << "reading " << ++readings_ << " period " << opts_.period_log2 << "\n";
    for (std::size_t i = 0; i < reasons_.size(); ++i)
      out << "reason " << reason_index_[i] << " " << reasons_[i].cupti_name << "\n";
    out << record;
  }
  return f;
}

void PcSampler::end(std::uint64_t launch, double) {
  const auto t0 = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (launch != current_ || !range_) return;
  current_ = 0;
  const CUptiResult r = range_->stop();
  range_.reset();
  CounterFigures f;
  if (r != CUPTI_SUCCESS) {
    fail("pc stop", r);
  } else {
    f.stalls = read_range();
    f.samples = static_cast<int>(std::min<std::uint64_t>(f.stalls->samples_in(), 1u << 30));
  }
  if (!unavailable_.empty()) {
    f = CounterFigures{};
    f.unavailable = unavailable_;
  }
  results_[launch] = std::move(f);
  while (results_.size() > 64) results_.erase(results_.begin());
  if (opts_.trace)
    opts_.trace("reading " + std::to_string(launch) + ": stop and read in " +
                std::to_string(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count()) +
                " ms, " +
                (results_[launch].stalls
                     ? std::to_string(results_[launch].stalls->samples_in()) + " samples at " +
                           std::to_string(results_[launch].stalls->pcs.size()) + " PCs"
                     : results_[launch].unavailable));
}

std::optional<CounterFigures> PcSampler::take(std::uint64_t launch, bool) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The figures are read in end(): nothing to wait for.
  const auto it = results_.find(launch);
  if (it != results_.end()) {
    CounterFigures f = std::move(it->second);
    results_.erase(it);
    return f;
  }
  CounterFigures f;
  f.unavailable = !unavailable_.empty() ? unavailable_ : "no PC-sampling range around this launch";
  return f;
}

}  // namespace mp::counters
