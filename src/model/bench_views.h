// bench's three fixed views, which its help names and the notes quote by letter.
#pragma once

#include "model/view.h"

namespace mp {

// At 3840x2160: the whole set, a seahorse-valley zoom full of divergence, and a view where
// almost every pixel runs all its steps. The texts are what the help shows.
struct NamedView {
  const char *name, *x, *y, *span;
  unsigned iters;
  View view;
};
inline NamedView named_view(const char* name, const char* x, const char* y, const char* span,
                            unsigned iters) {
  return {name, x, y, span, iters, *parse_view(x, y, span, iters)};
}
inline const NamedView kBenchViews[] = {
    named_view("A", "-0.5", "0", "3", 1024),
    named_view("B", "-0.743643887037151", "0.131825904205330", "0.005", 4096),
    named_view("C", "-0.75", "0", "0.05", 16384),
};

}  // namespace mp
