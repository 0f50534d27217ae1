#include "model/bookmarks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "io/embedded.h"
#include "render/cpu_renderer.h"

namespace mp {
namespace {

TEST(Bookmarks, ShippedBookmarksParse) {
  const auto b = parse_bookmarks(embedded::bookmarks_json);
  ASSERT_GE(b.size(), 3u);
  EXPECT_EQ(b[1].name, "Seahorse valley");
  EXPECT_DOUBLE_EQ(b[1].view.center_x.to_double(), -0.743643887037151);
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
  // Not whole numbers, or past any integer type (CI's fuzzing found the second undefined).
  for (const char* iters : {"1.5", "8193333333333333333333333333333333332", "1e80", "true"})
    EXPECT_THROW(parse_bookmarks(std::string(R"({"bookmarks": [{"name": "x", "center": [0, 0], )") +
                                 R"("span": 1, "iters": )" + iters + "}]}"),
                 std::runtime_error)
        << iters;
}

// Why a view is not worth opening on, or "": rendered small on the CPU reference, some pixels
// must escape, no single value may cover the screen, and there must be many iteration counts.
std::string dull(const View& v) {
  constexpr int kW = 96, kH = 54, kPixels = kW * kH;
  std::vector<float> out(kPixels * kFloatsPerPixel);
  std::vector<unsigned> counts(kPixels);
  CpuRenderer().render(VariantId::Fma4, pixel_grid(v, kW, kH), v.max_iter, out.data(),
                       counts.data());
  std::map<unsigned, int> histogram;
  for (unsigned n : counts) ++histogram[n];
  const auto inside = histogram.find(v.max_iter);
  const int escaped = kPixels - (inside == histogram.end() ? 0 : inside->second);
  int commonest = 0;
  for (const auto& [count, pixels] : histogram) commonest = std::max(commonest, pixels);
  const std::size_t distinct = histogram.size() - (inside == histogram.end() ? 0 : 1);
  if (escaped < kPixels * 5 / 100) return "almost nothing escapes (a black screen)";
  if (commonest > kPixels * 95 / 100) return "one value covers the screen";
  if (distinct < 32) return "too few distinct iteration counts";
  return "";
}

TEST(Bookmarks, EveryShippedBookmarkShowsSomething) {
  for (const Bookmark& b : parse_bookmarks(embedded::bookmarks_json))
    EXPECT_EQ(dull(b.view), "") << b.name;
}

TEST(Bookmarks, DullViewsAreCaught) {
  // The old "Mini-brot on the needle": no pixel within 2e-5 of it escapes in 4096 steps.
  EXPECT_NE(dull(view_at(-1.7685736562, 0.0, 2.0e-5, 4096)), "");
  EXPECT_NE(dull(view_at(-0.75, 0.0, 0.05, 16384)), "") << "the neck itself is a thin line";
  EXPECT_NE(dull(view_at(3.0, 3.0, 0.1, 1000)), "") << "far outside: every pixel escapes at once";
  EXPECT_NE(dull(view_at(0.3, 0.0, 1e-6, 1000)), "") << "just outside the cusp: nearly flat";
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

TEST(Bookmarks, OlderNumericFilesAndDecimalStringsBothRead) {
  const auto b = parse_bookmarks(R"({"bookmarks": [
      {"name": "old", "center": [-0.75, 0.1], "span": 0.05, "iters": 100},
      {"name": "new", "center": ["-0.75", "1e-700"], "span": "2.5e-650", "iters": 100}]})");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].view.center_x.to_double(), -0.75);
  EXPECT_EQ(b[0].view.center_y.to_double(), 0.1);
  EXPECT_EQ(to_double(b[0].view.span), 0.05);
  EXPECT_EQ(b[1].view.center_y.str(5), "1e-700");
  EXPECT_EQ(exact_span_text(b[1].view.span), "2.5e-650");
  EXPECT_GE(b[1].view.center_x.bits(), view_bits(b[1].view));
  for (const char* bad : {R"(["x", "0"])", R"(["nan", "0"])", R"([0, "1e"])"})
    EXPECT_THROW(parse_bookmarks(std::string(R"({"bookmarks": [{"name": "x", "center": )") + bad +
                                 R"(, "span": 1, "iters": 5}]})"),
                 std::runtime_error)
        << bad;
  EXPECT_THROW(parse_bookmarks(R"({"bookmarks": [{"name": "x", "center": [0, 0], "span": "0", )"
                               R"("iters": 5}]})"),
               std::runtime_error);
}

}  // namespace
}  // namespace mp
