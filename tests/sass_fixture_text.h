// The captured SASS of one architecture (tests/fixtures/sass, gzipped in the repository: a fifth
// of the size), as text; empty where the file is missing. For the tests that read the captures.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <string>

namespace mp {

inline std::string sass_fixture_text(const std::string& arch) {
  const std::string path = std::string(MP_FIXTURES) + "/sass/" + arch + ".sass.gz";
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return {};
  std::string text;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  return text;
}

}  // namespace mp
