// Text as the tables' cells must hold it: CSV fields quoted per RFC 4180, Markdown without a
// bare '|'. Shared by bench's and the experiments' reports.
#pragma once

#include <string>

namespace mp {

// Fields holding commas, quotes or line breaks are quoted, their quotes doubled.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Markdown table cells may not hold a bare '|'.
inline std::string md_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace mp
