// The names of the hidden files kept beside an output while it is written (its temporary files,
// the old files kept aside while a set is replaced, its lock), and telling a temporary file's
// name, and the process that wrote it, from any other.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mp {

// "." then as much of path's file name as keeps the whole within NAME_MAX, then `suffix`, beside
// `path`: so that an output name of any length allowed has one.
std::filesystem::path hidden_beside(const std::filesystem::path& path, const std::string& suffix);

// A temporary file of `target` written by process `pid`: ".NAME.part-PID-RANDOM", RANDOM being 16
// hex digits.
std::filesystem::path temp_name(const std::filesystem::path& target, long pid,
                                const std::string& random);

// The process that wrote the file called `name` (no folder), when that is a name temp_name makes
// for the file called `target_name`, or for any file where `target_name` is empty; nullopt for
// any other name.
std::optional<long> temp_writer(const std::string& name, const std::string& target_name);

}  // namespace mp
