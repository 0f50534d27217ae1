// Text from outside the program made safe to echo in a one-line message.
#pragma once

#include <string>
#include <string_view>

namespace mp {

// `text` with control characters and bytes that are not UTF-8 written as escapes (\n, \r, \t,
// \xNN), so that a flag's value, a path or a file's bytes can neither break a message's line nor
// drive the terminal; printable ASCII and other UTF-8 characters are kept as they are.
std::string printable(std::string_view text);

// A path as a message names it: an empty one as '' (a line "cannot read : ..." names nothing).
inline std::string path_text(std::string_view path) {
  return path.empty() ? "''" : std::string(path);
}

}  // namespace mp
