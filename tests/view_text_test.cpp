#include "cli/view_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "cli/options.h"
#include "io/embedded.h"
#include "io/settings.h"
#include "model/variant_table.h"

namespace mp {
namespace {

const std::vector<std::string> kPalettes = {"ember", "ocean", "grey"};

ViewTextResult parse(const std::string& text, const ViewState& current = {}) {
  return parse_view_text(text, current);
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}
bool same_bits(const BigReal& a, const BigReal& b) {
  return same_bits(a.to_double(), b.to_double());
}
bool same_bits(FloatExp a, FloatExp b) {
  return a == b;
}

TEST(ViewText, FormatsTheCommandLine) {
  ViewState s;
  s.view = *parse_view("-0.743643887037151", "0.131825904205330", "0.005", 4096);
  s.variant = VariantId::Fma4;
  s.palette = "ocean";
  s.colour = {1.5f, 0.1f, 0.6f};
  EXPECT_EQ(format_view_text(s),
            "mandelpipe --center -0.743643887037151,0.13182590420533 --span 0.005 --iters 4096 "
            "--variant fma4 --palette ocean --density 1.5 --offset 0.1 --stripe 0.6");
}

// The window's Ctrl+C with the variant pinned (K, or a variant the window keeps that render would
// not choose afresh) writes --pin, which a paste reads back as the pin, not as an option left
// aside.
TEST(ViewText, APinnedVariantComesWithPinAndIsReadBack) {
  ViewState s;
  s.view = *parse_view("-0.75", "0.1", "1e-10", 2000);
  s.variant = VariantId::Fp64;
  const std::string line = format_view_text(s, 640, 360, true);
  EXPECT_NE(line.find(" --variant fp64 "), std::string::npos) << line;
  EXPECT_EQ(line.substr(line.size() - 6), " --pin") << line;
  const ViewTextResult r = parse(line);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.pin);
  EXPECT_EQ(r.state.variant, VariantId::Fp64);
  EXPECT_EQ(r.left_aside, (std::vector<std::string>{"--width", "--height"}));
  EXPECT_FALSE(parse(format_view_text(s, 640, 360)).pin);
}

// A pasted line's --iters is the user's own limit (the window's automatic one goes off).
TEST(ViewText, SaysWhetherTheLineGaveTheLimit) {
  const ViewTextResult with =
      parse("mandelpipe render --out x.png --center -1.25,0.02 --iters 500");
  ASSERT_TRUE(with.ok) << with.error;
  EXPECT_TRUE(with.iters_given);
  EXPECT_EQ(with.state.view.max_iter, 500u);
  const ViewTextResult without = parse("--center -1.25,0.02 --span 0.05");
  ASSERT_TRUE(without.ok) << without.error;
  EXPECT_FALSE(without.iters_given);
}

TEST(ViewText, RandomViewsRoundTripExactly) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> coord(-2.5, 2.5), exponent(-15.0, 1.0);
  std::uniform_int_distribution<unsigned> iters(1, kMaxIterations);
  std::uniform_real_distribution<double> density(kMinDensity, kMaxDensity), unit(0.0, 1.0);
  const auto& variants = all_variants();
  for (int k = 0; k < 5000; ++k) {
    ViewState s;
    s.view.center_x = BigReal(coord(rng));
    s.view.center_y = BigReal(coord(rng));
    s.view.span = to_floatexp(std::pow(10.0, exponent(rng)));
    s.view.max_iter = iters(rng);
    s.variant = variants[rng() % variants.size()].id;
    s.palette = kPalettes[rng() % kPalettes.size()];
    s.colour.density = static_cast<float>(density(rng));
    s.colour.offset = static_cast<float>(unit(rng));
    s.colour.stripe = static_cast<float>(unit(rng));
    const std::string text = format_view_text(s);
    const ViewTextResult r = parse(text);
    ASSERT_TRUE(r.ok) << text << ": " << r.error;
    ASSERT_TRUE(same_bits(r.state.view.center_x, s.view.center_x)) << text;
    ASSERT_TRUE(same_bits(r.state.view.center_y, s.view.center_y)) << text;
    ASSERT_TRUE(same_bits(r.state.view.span, s.view.span)) << text;
    ASSERT_EQ(r.state, s) << text;
  }
}

TEST(ViewText, ColourEndsRoundTrip) {
  for (float v : {0.0f, 1.0f, std::nextafter(0.0f, 1.0f), std::nextafter(1.0f, 0.0f), 0.1f}) {
    ViewState s;
    s.colour = {std::max(v * kMaxDensity, kMinDensity), v, v};
    const ViewTextResult r = parse(format_view_text(s));
    ASSERT_TRUE(r.ok) << format_view_text(s) << ": " << r.error;
    EXPECT_EQ(r.state, s) << format_view_text(s);
  }
}

TEST(ViewText, AwkwardDoublesRoundTrip) {
  for (double x : {0.0, -0.0, 0.1, 1.0 / 3.0, -2.0, 1e-300, std::nextafter(1.0, 2.0),
                   std::numeric_limits<double>::max(), -std::numeric_limits<double>::min()}) {
    ViewState s;
    s.view.center_x = BigReal(x);
    s.view.center_y = BigReal(-x);
    if (x > 0 && x <= kMaxSpan) s.view.span = to_floatexp(x);
    const ViewTextResult r = parse(format_view_text(s));
    if (std::abs(x) > kMaxCentre) {  // past the view's range: refused, in one line
      EXPECT_FALSE(r.ok) << format_view_text(s);
      EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
      continue;
    }
    ASSERT_TRUE(r.ok) << format_view_text(s) << ": " << r.error;
    EXPECT_TRUE(same_bits(r.state.view.center_x.to_double(), x)) << format_view_text(s);
    EXPECT_TRUE(same_bits(r.state.view.center_y.to_double(), -x)) << format_view_text(s);
    EXPECT_TRUE(same_bits(r.state.view.span, s.view.span)) << format_view_text(s);
  }
}

TEST(ViewText, DeepViewsRoundTripEveryDigit) {
  // 2,000 significant digits in the centre, a span deep enough to need them all.
  std::mt19937 rng(99);
  std::string x = "-1.";
  for (int k = 0; k < 1998; ++k) x += static_cast<char>('0' + rng() % 10);
  x += "3";
  const std::string y = "0.0" + x.substr(3);  // 1,999 of the same digits
  ViewState s;
  s.view = *parse_view(x, y, "2.5e-1995", 50000);
  const std::string text = format_view_text(s);
  EXPECT_NE(text.find("--center " + x + "," + y + " --span 2.5e-1995 "), std::string::npos)
      << text.substr(0, 200);
  const ViewTextResult r = parse(text);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.state, s);
  EXPECT_EQ(format_view_text(r.state), text);
  // A centre alone is read at the precision of the span it keeps: the current, deep one.
  const ViewTextResult centre = parse("--center " + x + "," + y, s);
  ASSERT_TRUE(centre.ok) << centre.error;
  EXPECT_EQ(centre.state.view, s.view);
}

TEST(ViewText, ToleratesWhatPeopleTypeAndPaste) {
  ViewState current;
  current.variant = VariantId::Fma5;
  current.palette = "grey";
  for (const char* text : {"mandelpipe --center -1.25,0.5 --span 0.01 --iters 300\n",
                           "  --center   -1.25,0.5\t--span 0.01  --iters 300  \r\n",
                           "./build/mandelpipe --center=-1.25,0.5 --span=0.01 --iters=300",
                           "/usr/bin/mandelpipe --iters 300 --span 1e-2 --center -1.25,0.5"}) {
    const ViewTextResult r = parse(text, current);
    ASSERT_TRUE(r.ok) << text << ": " << r.error;
    EXPECT_EQ(r.state.view, *parse_view("-1.25", "0.5", "0.01", 300)) << text;
    EXPECT_EQ(r.state.variant, VariantId::Fma5) << "left out: kept";
    EXPECT_EQ(r.state.palette, "grey") << "left out: kept";
    EXPECT_EQ(r.state.colour.density, current.colour.density) << "left out: kept";
  }
  const ViewTextResult partial = parse("--span 0.5", current);
  ASSERT_TRUE(partial.ok) << partial.error;
  EXPECT_EQ(partial.state.view.center_x, current.view.center_x);
  EXPECT_EQ(partial.state.view.span, to_floatexp(0.5));
}

// A render command line shows a view too: pasted, its view is taken and render's own options
// (the file, the size, supersampling, a zoom sequence) are left aside and named.
TEST(ViewText, TakesTheViewOfARenderLine) {
  ViewState current;
  current.palette = "grey";
  const ViewTextResult r = parse(
      "mandelpipe render --center -1.25,0.5 --span 0.01 --iters 300 --out x.png --width 640 "
      "--height=360 --ss 2 --cpu --variant fma5 --zoom-to 0,0,1e-5 --frames 30",
      current);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.state.view, *parse_view("-1.25", "0.5", "0.01", 300));
  EXPECT_EQ(r.state.variant, VariantId::Fma5);
  EXPECT_EQ(r.state.palette, "grey") << "left out: kept";
  EXPECT_EQ(r.left_aside, (std::vector<std::string>{"--out", "--width", "--height", "--ss", "--cpu",
                                                    "--zoom-to", "--frames"}));
  // Its own options' values are left unread; the view's are checked as ever.
  EXPECT_TRUE(parse("render --out notes.txt --center 0,0").ok);
  EXPECT_FALSE(parse("render --out x.png --center nan,0").ok);
  // The window's line takes a size as render's does.
  const ViewTextResult sized = parse("mandelpipe --span 2 --width 800 --height 600", current);
  ASSERT_TRUE(sized.ok) << sized.error;
  EXPECT_EQ(sized.left_aside, (std::vector<std::string>{"--width", "--height"}));
}

TEST(ViewText, RefusesWhatIsNotAView) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"", "empty"},
      {"  \n", "empty"},
      {"mandelpipe", "empty"},
      {"hello world", "'hello'"},
      {"mandelpipe bench --center 0,0", "'bench'"},
      {"--center nan,0", "--center"},
      {"--center 0,inf", "--center"},
      {"--center 1", "--center"},
      {"--span 0", "--span"},
      {"--span -1", "--span"},
      {"--span inf", "--span"},
      {"--span nan", "--span"},
      {"--span 1x", "--span"},
      {"--iters 0", "--iters"},
      {"--iters 10000001", "--iters"},
      {"--iters 2.5", "--iters"},
      {"--variant fma9", "--variant"},
      {"--palette neon", "--palette: unknown 'neon' (known: ember, ocean, grey)"},
      {"--density 0", "--density"},
      {"--density 1001", "--density"},
      {"--offset -0.1", "--offset"},
      {"--offset nan", "--offset"},
      {"--stripe 2", "--stripe"},
      {"--overlay", "--overlay is not part of a view"},
      {"--open-experiment dispatch", "--open-experiment is not part of a view"},
      {"--span", "--span: needs a value"},
      {"--span 1 --span 2", "given twice"},
      {"render --out", "--out: needs a value"},
      {"--help", "--help is not part of a view"},
  };
  for (const Case& c : cases) {
    const ViewTextResult r = parse(c.text);
    EXPECT_FALSE(r.ok) << c.text;
    EXPECT_NE(r.error.find(c.says), std::string::npos) << c.text << " -> " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << "one line: " << r.error;
  }
  // Past a megabyte (a centre of half a million digits) it is not a view someone copied.
  EXPECT_FALSE(parse(std::string(1 << 20, ' ') + "--span 1").ok);
}

// What Ctrl+C copies is a command line that opens the window at the same place: the window's own
// parser reads every value back, bit for bit.
TEST(ViewText, CopiedTextIsAWindowCommandLine) {
  std::vector<std::string> palettes;
  for (const Palette& p : parse_palettes(embedded::palettes_json)) palettes.push_back(p.name);
  ASSERT_FALSE(palettes.empty());
  std::mt19937_64 rng(1717);
  std::uniform_real_distribution<double> coord(-2.5, 2.5), exponent(-15.0, 1.0);
  std::uniform_int_distribution<unsigned> iters(1, kMaxIterations);
  std::uniform_real_distribution<double> density(kMinDensity, kMaxDensity), unit(0.0, 1.0);
  const auto& variants = all_variants();
  for (int k = 0; k < 500; ++k) {
    ViewState s;
    s.view = view_at(coord(rng), coord(rng), std::pow(10.0, exponent(rng)), iters(rng));
    s.variant = variants[rng() % variants.size()].id;
    s.palette = palettes[rng() % palettes.size()];
    s.colour = {static_cast<float>(density(rng)), static_cast<float>(unit(rng)),
                static_cast<float>(unit(rng))};
    const std::string text = format_view_text(s);
    std::vector<std::string> args;
    std::istringstream words(text);
    for (std::string w; words >> w;) args.push_back(w);
    const ParseResult r = parse_command_line(args);
    ASSERT_TRUE(r.options) << text << ": " << r.err;
    ASSERT_EQ(command_of(*r.options), Command::Window) << text;
    const WindowOptions& o = std::get<WindowOptions>(*r.options);
    ASSERT_TRUE(same_bits(o.view.center_x, s.view.center_x)) << text;
    ASSERT_TRUE(same_bits(o.view.center_y, s.view.center_y)) << text;
    ASSERT_TRUE(same_bits(o.view.span, s.view.span)) << text;
    ASSERT_EQ(o.view.max_iter, s.view.max_iter) << text;
    ASSERT_EQ(o.variant, s.variant) << text;
    ASSERT_TRUE(o.palette_given) << text;
    ASSERT_EQ(o.palette, s.palette) << text;
    ASSERT_TRUE(o.colour_given.density && o.colour_given.offset && o.colour_given.stripe) << text;
    ASSERT_EQ(o.colour.density, s.colour.density) << text;
    ASSERT_EQ(o.colour.offset, s.colour.offset) << text;
    ASSERT_EQ(o.colour.stripe, s.colour.stripe) << text;
  }
}

// A pasted location that turns the view goes to its place unturned, and the paste says so.
TEST(ViewText, APastedLocationNamesTheRotationItLeavesOut) {
  const std::string kfr = "Re: -0.75\r\nIm: 0.1\r\nZoom: 10\r\nIterations: 200\r\n";
  ViewState current;
  const ViewTextResult plain = parse_kfr_view(kfr, current, 320, 200);
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(plain.note, "");
  const ViewTextResult turned = parse_kfr_view(kfr + "Rotate: 30\r\n", current, 320, 200);
  ASSERT_TRUE(turned.ok) << turned.error;
  EXPECT_EQ(turned.state.view.max_iter, 200u);
  EXPECT_EQ(turned.note, "Rotate: 30 is left out: mandelpipe's views are not turned");
}

// A pasted location without Iterations (as shared ones often are) keeps the window's limit, and
// the paste says so.
TEST(ViewText, APastedLocationWithoutIterationsKeepsTheLimit) {
  ViewState current;
  current.view.max_iter = 3000;
  const ViewTextResult r =
      parse_kfr_view("Re: -0.75\r\nIm: 0.1\r\nZoom: 100\r\n", current, 320, 200);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.state.view.max_iter, 3000u);
  EXPECT_EQ(r.note, "no usable Iterations: the limit of 3000 kept");
  // Its place's faults are still named.
  const ViewTextResult bad =
      parse_kfr_view("Re: -0.75\r\nIm: abc\r\nZoom: 100\r\n", current, 320, 200);
  EXPECT_EQ(bad.error, "location: Im: 'abc' is not a decimal number");
}

// A location outside the views mandelpipe takes names the values at fault.
TEST(ViewText, ALocationOutOfRangeNamesWhatIsOut) {
  ViewState current;
  const ViewTextResult far =
      parse_kfr_view("Re: 1e400\r\nIm: 0\r\nZoom: 10\r\nIterations: 200\r\n", current, 320, 200);
  ASSERT_FALSE(far.ok);
  EXPECT_NE(far.error.find("Re: '1e400'"), std::string::npos) << far.error;
  EXPECT_NE(far.error.find("within 1000"), std::string::npos) << far.error;
  const ViewTextResult wide =
      parse_kfr_view("Re: 0\r\nIm: 0\r\nZoom: 1e-5\r\nIterations: 200\r\n", current, 320, 200);
  ASSERT_FALSE(wide.ok);
  EXPECT_NE(wide.error.find("Zoom: '1e-5'"), std::string::npos) << wide.error;
  EXPECT_NE(wide.error.find("to 64"), std::string::npos) << wide.error;
}

}  // namespace
}  // namespace mp
