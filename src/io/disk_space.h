// Whether a run's files fit in the file systems they go to, checked before the work: the most
// each can take against the space free there, so that a render of hours is refused at once
// rather than failing when the disk fills.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mp {

// A file system, and the bytes in it that this process may still write.
struct Space {
  std::uint64_t device = 0;
  std::uint64_t free = 0;
};
// The file system that holds `folder`, or would once it is made (its nearest folder that is
// there); nullopt where it cannot be read.
std::optional<Space> space_of(const std::filesystem::path& folder);

// A file to be written and the most bytes it can take.
struct Need {
  std::filesystem::path file;
  std::uint64_t bytes = 0;
};
using SpaceOf = std::function<std::optional<Space>(const std::filesystem::path& folder)>;

// Throws std::runtime_error "cannot write WHAT: ..." (one line, with the sizes) when the needs
// going to one file system add up to more than it has free; file systems whose space cannot be
// read are not checked. `space`: space_of, or a stand-in for tests.
void check_room(const std::vector<Need>& needs, const std::string& what,
                const SpaceOf& space = space_of);

}  // namespace mp
