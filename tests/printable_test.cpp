#include "io/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace mp {
namespace {

TEST(Printable, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(printable("a\nb\x1b[31m\r\t\x7f"), "a\\nb\\x1b[31m\\r\\t\\x7f");
  EXPECT_EQ(printable(std::string("nul\0here", 8)), "nul\\x00here");
}

TEST(Printable, TextAndUtf8AreKept) {
  EXPECT_EQ(printable("--palette: unknown 'ember2'"), "--palette: unknown 'ember2'");
  EXPECT_EQ(printable("colour \xC3\xA9t\xC3\xA9 \xE2\x88\x9E \xF0\x9F\x8E\xA8"),
            "colour \xC3\xA9t\xC3\xA9 \xE2\x88\x9E \xF0\x9F\x8E\xA8");
}

TEST(Printable, BytesThatAreNotUtf8AndC1ControlsBecomeEscapes) {
  EXPECT_EQ(printable("\xff.png"), "\\xff.png");
  EXPECT_EQ(printable("\xC2\x9B"
                      "31m"),
            "\\xc2\\x9b31m");                               // U+009B, the one-byte CSI
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");           // '/' in two bytes (overlong)
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("cut \xE2\x88"), "cut \\xe2\\x88");   // a character cut short
}

}  // namespace
}  // namespace mp
