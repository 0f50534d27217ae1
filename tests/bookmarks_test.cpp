#include "model/bookmarks.h"

#include <gtest/gtest.h>

#include "io/embedded.h"

namespace mp {
namespace {

TEST(Bookmarks, ShippedBookmarksParse) {
  const auto b = parse_bookmarks(embedded::bookmarks_json);
  ASSERT_GE(b.size(), 3u);
  EXPECT_EQ(b[1].name, "Seahorse valley");
  EXPECT_DOUBLE_EQ(b[1].view.center_x, -0.743643887037151);
  EXPECT_EQ(b[1].view.max_iter, 4096u);
}

TEST(Bookmarks, BadEntriesAreRejected) {
  EXPECT_THROW(parse_bookmarks("[]"), std::runtime_error);
  EXPECT_THROW(
      parse_bookmarks(R"({"bookmarks": [{"name": "x", "center": [0, 0], "span": 0, "iters": 5}]})"),
      std::runtime_error);
  EXPECT_THROW(
      parse_bookmarks(R"({"bookmarks": [{"name": "x", "center": [0, 0], "span": 1, "iters": 0}]})"),
      std::runtime_error);
}

}  // namespace
}  // namespace mp
