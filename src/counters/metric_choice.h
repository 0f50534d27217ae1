// Which of a chip's PM-sampling metrics stand for each pipe the model has, chosen at run time
// from the chip's own metric list (never one chip's hard-coded names: GH100 prefixes its
// single-pass live metrics with TPC./SM_A.TriageCompute., GA10x and AD10x with Triage groups
// of their own, TU10x and GA100 differ again), packed into as few single-pass
// configurations as the chip allows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "counters/cupti_api.h"

namespace mp::counters {

enum class MetricKind { PctOfPeak, Count, PerSecond };

struct ChosenMetric {
  std::string pipe;    // FMA, fmaheavy, fmalite, ALU, XU, FP64, issue, SM active; or
                       // "instructions", "clock" (no pipe: what the figures are scaled by)
  std::string metric;  // full name, as evaluated: base metric plus roll-up and submetric
  MetricKind kind = MetricKind::PctOfPeak;
};

struct MetricChoice {
  std::string chip;
  // One configuration, or two where one pass cannot hold every pipe: the sampler then
  // alternates them and says so.
  std::vector<std::vector<ChosenMetric>> configurations;
  std::vector<std::string> missing;  // pipes this chip has no live metric for
  bool fma_from_halves = false;      // FMA is the mean of fmaheavy and fmalite (no room for it)
  std::string error;                 // non-empty: nothing usable, in words
  CuptiFailure failure;              // ...and, where CUPTI refused, at which step with what
};

// A CUPTI host object for one chip's PM sampling, released on every path; `add` puts metrics
// in it (their names kept here, where CUPTI's pointers to them stay valid).
class HostObject {
 public:
  HostObject(const Cupti& cupti, const std::string& chip,
             const std::vector<std::uint8_t>& availability);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }
  CUptiResult result() const { return result_; }  // of the initialisation
  CUptiResult add(const std::vector<std::string>& metrics);
  const std::vector<const char*>& names() const { return names_; }

 private:
  const Cupti& cupti_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
  CUptiResult result_ = CUPTI_SUCCESS;
  std::vector<std::string> metrics_;
  std::vector<const char*> names_;
};

// availability: the device's counter availability image (empty without a device: CUPTI then
// assumes every counter is there). Needs only CUPTI's host library, no GPU.
MetricChoice choose_metrics(const Cupti& cupti, const std::string& chip,
                            const std::vector<std::uint8_t>& availability);

// The base names the chip offers for PM sampling (its counters), or empty with *failure set.
std::vector<std::string> base_metrics(const Cupti& cupti, const std::string& chip,
                                      const std::vector<std::uint8_t>& availability,
                                      CuptiFailure* failure);

// Passes one configuration of these metrics needs; -1 if CUPTI refuses them (*failure says
// where: a name the chip does not know fails at "add metrics" with INVALID_PARAMETER).
int passes_needed(const Cupti& cupti, const std::string& chip,
                  const std::vector<std::uint8_t>& availability,
                  const std::vector<std::string>& metrics, CuptiFailure* failure);

// The configuration image for these metrics (what the sampler is set up with), or empty with
// *failure set.
std::vector<std::uint8_t> config_image(const Cupti& cupti, const std::string& chip,
                                       const std::vector<std::uint8_t>& availability,
                                       const std::vector<std::string>& metrics,
                                       CuptiFailure* failure);

}  // namespace mp::counters
