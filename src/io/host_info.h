// What a record says of the machine and the moment it was made: the CPU's model, the time.
#pragma once

#include <chrono>
#include <string>

namespace mp {

// The CPU's model as the kernel reports it (/proc/cpuinfo's "model name"), or "unknown".
std::string cpu_model_name();
// Now, in UTC as ISO 8601: "2025-11-27T14:03:09Z".
std::string utc_timestamp();
// How long after this process started (exec) the moment `t` was, in ms: the start as
// /proc/self/stat gives it, in the kernel's clock ticks (10 ms where USER_HZ is 100), so figures
// of one process share that offset and their differences are exact; -1 where it cannot tell.
double process_age_ms(std::chrono::steady_clock::time_point t);

}  // namespace mp
