// Named views (assets/bookmarks.json), offered in the panel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "view.h"

namespace mp {

struct Bookmark {
  std::string name;
  View view;
};

// Throws std::runtime_error naming the problem (bad JSON, span <= 0, iters out of range, ...).
std::vector<Bookmark> parse_bookmarks(std::string_view json);

}  // namespace mp
