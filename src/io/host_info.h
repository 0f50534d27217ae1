// What a record says of the machine and the moment it was made: the CPU's model, the time.
#pragma once

#include <string>

namespace mp {

// The CPU's model as the kernel reports it (/proc/cpuinfo's "model name"), or "unknown".
std::string cpu_model_name();
// Now, in UTC as ISO 8601: "2025-11-27T14:03:09Z".
std::string utc_timestamp();

}  // namespace mp
