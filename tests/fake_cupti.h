// CUPTI's target side as the tests fake it (there is no GPU in CI): the calls every faked GPU
// answers alike. Each test adds its own clock, chip name, configuration and records.
#pragma once

#include "counters/cupti_api.h"

namespace mp::counters {

inline void fake_cupti_basics(CuptiFunctions& f) {
  f.profiler_initialize = [](CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; };
  f.availability = [](CUpti_PmSampling_GetCounterAvailability_Params* p) {
    p->counterAvailabilityImageSize = 0;
    return CUPTI_SUCCESS;
  };
  static CUpti_PmSampling_Object* const kObject = reinterpret_cast<CUpti_PmSampling_Object*>(16);
  f.enable = [](CUpti_PmSampling_Enable_Params* p) {
    p->pPmSamplingObject = kObject;
    return CUPTI_SUCCESS;
  };
  f.disable = [](CUpti_PmSampling_Disable_Params*) { return CUPTI_SUCCESS; };
}

}  // namespace mp::counters
