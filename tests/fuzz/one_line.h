// What every fuzz target checks of a refusal: one clear line, as the user would see it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mp::fuzz {

// Aborts (a libFuzzer crash, with the input saved) when a message is empty or spans lines.
inline void expect_one_line(const std::string& message, const char* what) {
  if (!message.empty() && message.find_first_of("\r\n") == std::string::npos) return;
  std::fprintf(stderr, "%s: not one clear line: [%s]\n", what, message.c_str());
  std::abort();
}

}  // namespace mp::fuzz
