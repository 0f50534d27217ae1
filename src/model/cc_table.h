// Lookup in a per-compute-capability table: the row for the chip, or for the newest older chip
// in the table (a newer chip runs the older PTX and is modelled like it).
#pragma once

#include <stdexcept>
#include <string>

namespace mp {

// `rows` are ordered by (major, minor), each with int members `major` and `minor`; `what`
// names the table in the error for chips older than every row.
template <class Rows>
const auto& nearest_cc_row(const Rows& rows, int cc_major, int cc_minor, const char* what) {
  const auto* best = static_cast<decltype(&*std::begin(rows))>(nullptr);
  for (const auto& row : rows)
    if (row.major < cc_major || (row.major == cc_major && row.minor <= cc_minor)) best = &row;
  if (!best)
    throw std::out_of_range(std::string("no ") + what + " for compute capability " +
                            std::to_string(cc_major) + "." + std::to_string(cc_minor) +
                            " (mandelpipe models 7.0 and newer)");
  return *best;
}

}  // namespace mp
