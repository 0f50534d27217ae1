// Temporary files that runs stopped without a chance to remove them (SIGKILL, a crash, a power
// cut) left beside their outputs: known by their names (temp_names.h), which carry the writer's
// process id, and removed once that process is gone.
#pragma once

#include <filesystem>
#include <vector>

namespace mp {

// Removes the temporary files of `outputs` whose writer no longer runs and returns their paths.
// Call it holding the OutputLock of the output they belong to: that keeps out other runs to it
// from any machine that shares the folder, and the writer's id keeps the files of every live
// process of this machine, locked or not (a capture, a run's first probe of the folder). Only
// regular files go; one that cannot be removed (another user's, in a sticky folder) stays.
std::vector<std::filesystem::path> remove_stale_temps(
    const std::vector<std::filesystem::path>& outputs);
// The same for the temporary files of any file in `folder`, when the lock held guards every file
// in it (a zoom sequence's folder).
std::vector<std::filesystem::path> remove_stale_temps_in(const std::filesystem::path& folder);

}  // namespace mp
