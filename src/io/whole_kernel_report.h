// bench's figures of the whole-kernel model (model/whole_kernel.h) beside the counters': a JSON
// object per row and a Markdown table of model against counters.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/report.h"

namespace mp {

// {"instructions", "outside_step_loop", "parts": {part: instructions}, "busy": {pipe: %},
// "unplaced": [...], "not_modelled": [...]}, or {"unusable": why}.
nlohmann::json whole_kernel_json(const MeasuredRow& r);

// Per row: the whole kernel's instructions against the counters', the share outside the step
// loop, then issue and each pipe the counters read, model / counters (difference in points).
std::string whole_kernel_md(const std::vector<MeasuredRow>& rows);

}  // namespace mp
