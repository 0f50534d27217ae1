// printf-style formatting of one number, for the Markdown and CSV tables.
#pragma once

#include <cstdio>
#include <string>

namespace mp {

inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace mp
