#include "io/kfr_location.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mp {
namespace {
namespace fs = std::filesystem;

// A location as KF saves one: CRLF lines, the view first, then colouring and formula keys.
const char kSaved[] =
    "Re: -1.7497219297423385717185264219567510408574\r\n"
    "Im: -0.0000000000023161668706038783964040358175\r\n"
    "Zoom: 1.00e050\r\n"
    "Iterations: 263010\r\n"
    "IterDiv: 0.500000\r\n"
    "SmoothMethod: 0\r\n"
    "ColorMethod: 7\r\n"
    "Colors: 0,0,0,41,35,190,132,225,108,\r\n"
    "MultiColors: \r\n"
    "TextureFile: C:\\Users\\someone\\texture.jpg\r\n"
    "Power: 2\r\n"
    "FractalType: 0\r\n";

std::string with_line(const std::string& key, const std::string& value) {
  return std::string(kSaved) + key + ": " + value + "\r\n";
}

// kSaved with `key`'s value replaced.
std::string with_value(const std::string& key, const std::string& value) {
  std::string text = kSaved;
  const std::size_t at = text.find(key + ": ");
  const std::size_t end = text.find("\r\n", at);
  return text.replace(at, end - at, key + ": " + value);
}

std::string error_of(const std::string& text) {
  const KfrResult r = parse_kfr(text);
  EXPECT_FALSE(r.ok) << text.substr(0, 200);
  EXPECT_EQ(r.error.find_first_of("\r\n"), std::string::npos) << r.error;
  return r.error;
}

TEST(KfrLocation, ASavedFileReadsAndWritesBack) {
  const KfrResult r = parse_kfr(kSaved);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.re, "-1.7497219297423385717185264219567510408574");
  EXPECT_EQ(r.location.im, "-0.0000000000023161668706038783964040358175");
  EXPECT_EQ(r.location.zoom, "1.00e050");
  EXPECT_EQ(r.location.iterations, 263010u);

  // The height spans 4 / zoom; the width 16/9 of that.
  const BigDecimal span = kfr_span(r.location.zoom, 1920, 1080);
  EXPECT_EQ(span.text, "7.1111111111111111111e-50");
  EXPECT_EQ(span.exponent10, -50);
  EXPECT_NEAR(span.mantissa, 7.1111111111111, 1e-13);

  const std::string text =
      format_kfr(r.location.re, r.location.im, span.text, r.location.iterations, 1920, 1080);
  EXPECT_EQ(text,
            "Re: -1.7497219297423385717185264219567510408574\r\n"
            "Im: -0.0000000000023161668706038783964040358175\r\n"
            "Zoom: 1.0000000000000000E50\r\n"
            "Iterations: 263010\r\n"
            "FractalType: 0\r\n"
            "Power: 2\r\n");
  const KfrResult back = parse_kfr(text);
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_EQ(back.location.re, r.location.re);
  EXPECT_EQ(back.location.im, r.location.im);
  EXPECT_EQ(back.location.iterations, r.location.iterations);
}

TEST(KfrLocation, LinesMayEndInLfAloneAndBlankLinesPass) {
  const KfrResult r = parse_kfr("\nRe: 0.25\n\n  \nIm: -0.5\nZoom:   2  \nIterations: 100");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.re, "0.25");
  EXPECT_EQ(r.location.zoom, "2");
  EXPECT_EQ(kfr_span(r.location.zoom, 100, 100).text, "2e0");
}

// A UTF-8 byte order mark before the first key, as an editor on Windows saves one; only there.
TEST(KfrLocation, AByteOrderMarkAtTheStartIsReadPast) {
  const KfrResult r = parse_kfr("\xef\xbb\xbf" + std::string(kSaved));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.re, "-1.7497219297423385717185264219567510408574");
  EXPECT_NE(error_of(std::string(kSaved) + "\xef\xbb\xbfRotate: 0\r\n").find("line "),
            std::string::npos);
}

// KF's Rotate turns the view, which mandelpipe's do not: a note says so, except for a zero.
TEST(KfrLocation, ARotationIsNamedAsLeftOut) {
  for (const char* zero : {"0", "0.000000", "-0"}) {
    const KfrResult r = parse_kfr(with_line("Rotate", zero));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(kfr_left_out(r.location), "") << zero;
  }
  const KfrResult r = parse_kfr(with_line("Rotate", "45.5"));
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(kfr_left_out(r.location),
            "Rotate: 45.5 is left out: mandelpipe's views are not turned");
  EXPECT_EQ(kfr_left_out(parse_kfr(kSaved).location), "");
}

TEST(KfrLocation, TwoThousandDigitCoordinatesAreKeptExactly) {
  std::string re = "-1.", im = "0.";
  for (int i = 0; i < 2000; ++i) {
    re += static_cast<char>('0' + (i * 7 + 3) % 10);
    im += static_cast<char>('0' + (i * 3 + 1) % 10);
  }
  const KfrResult r = parse_kfr("Re: " + re + "\r\nIm: " + im + "\r\nZoom: 3.7E1995\r\n" +
                                "Iterations: 9000000\r\n");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.re, re);
  EXPECT_EQ(r.location.im, im);
  const BigDecimal span = kfr_span(r.location.zoom, 1000, 1000);
  EXPECT_EQ(span.exponent10, -1995);  // 4 / 3.7 = 1.08...
  const KfrResult back = parse_kfr(format_kfr(re, im, span.text, 9000000, 1000, 1000));
  ASSERT_TRUE(back.ok) << back.error;
  EXPECT_EQ(back.location.re, re);
  EXPECT_EQ(back.location.im, im);
  EXPECT_EQ(back.location.zoom, "3.7000000000000000E1995");
}

TEST(KfrLocation, ZoomsPastDoubleGiveSpansInTheirDecade) {
  EXPECT_EQ(kfr_span("1E1000", 640, 360).text, "7.1111111111111111111e-1000");
  EXPECT_EQ(kfr_span("1E1000", 360, 640).text, "2.25e-1000");
  EXPECT_EQ(kfr_span("5.2E10000", 1, 1).text, "7.6923076923076923077e-10001");
  EXPECT_EQ(kfr_span("1e-99999", 1, 1).exponent10, 99999);
  EXPECT_EQ(kfr_span("0.00004e100004", 1, 1).text, "1e-99999");
  EXPECT_THROW(kfr_span("1e200000000", 1, 1), std::invalid_argument);
  EXPECT_THROW(kfr_span("0", 1, 1), std::invalid_argument);
  EXPECT_THROW(kfr_span("2", 0, 1), std::invalid_argument);
}

TEST(KfrLocation, MissingAndRepeatedKeysAreNamed) {
  for (const char* key : {"Re", "Im", "Zoom", "Iterations"}) {
    std::string text = kSaved;
    const std::size_t at = text.find(std::string(key) + ": ");
    text.erase(at, text.find("\r\n", at) + 2 - at);
    EXPECT_EQ(error_of(text), std::string(key) + ": missing");
  }
  EXPECT_EQ(error_of(with_line("Zoom", "1e3")), "Zoom: given twice (lines 3 and 13)");
  EXPECT_EQ(error_of(with_line("Colors", "1,2,3")), "Colors: given twice (lines 8 and 13)");
}

TEST(KfrLocation, NumbersThatAreNotFiniteDecimalsAreNamed) {
  EXPECT_EQ(error_of(with_value("Re", "nan")), "Re: 'nan' is not a decimal number");
  EXPECT_EQ(error_of(with_value("Im", "-inf")), "Im: '-inf' is not a decimal number");
  EXPECT_EQ(error_of(with_value("Zoom", "inf")), "Zoom: 'inf' is not a decimal number");
  for (const char* junk : {"", "1.2.3", "0x10", "12abc", "1e", "e5", "+", "-.", ". 5", "1,5"})
    EXPECT_EQ(error_of(with_value("Re", junk)),
              "Re: '" + std::string(junk) + "' is not a decimal number");
  EXPECT_EQ(error_of(with_value("Im", "1e-200000000")),
            "Im: '1e-200000000' is out of range (10^-100000000 to 10^100000000)");
}

TEST(KfrLocation, ZoomsMustBeAboveZeroAndInRange) {
  for (const char* bad : {"0", "-1e5", "0.000", "-0"})
    EXPECT_EQ(error_of(with_value("Zoom", bad)), "Zoom: '" + std::string(bad) + "' is not above 0");
  for (const char* far : {"1e999999999", "1e-999999999", "1E100000001", "1e99999999999999999999"})
    EXPECT_EQ(error_of(with_value("Zoom", far)), "Zoom: '" + std::string(far) +
                                                     "' is out of range (10^-100000000 to "
                                                     "10^100000000)");
  // Within it: deeper than any view goes (the view refuses those, as it does --span's).
  EXPECT_TRUE(parse_kfr(with_value("Zoom", "9.99E100000000")).ok);
  EXPECT_TRUE(parse_kfr(with_value("Zoom", "1E-100000000")).ok);
  EXPECT_TRUE(parse_kfr(with_value("Zoom", "1E999999")).ok);
}

TEST(KfrLocation, IterationsOutsideOneToTenMillionAreNamed) {
  for (const char* bad : {"0", "10000001", "-5", "1e3", "99999999999999999999", "12.0", ""})
    EXPECT_EQ(error_of(with_value("Iterations", bad)),
              "Iterations: '" + std::string(bad) + "' is not a whole number from 1 to 10000000");
  EXPECT_EQ(parse_kfr(with_value("Iterations", "10000000")).location.iterations, 10000000u);
  EXPECT_EQ(parse_kfr(with_value("Iterations", "0001")).location.iterations, 1u);
}

TEST(KfrLocation, JunkLinesAndHugeTextsAreRefused) {
  EXPECT_EQ(error_of(std::string(kSaved) + "garbage line\r\n"),
            "line 13 is not 'Key: value': 'garbage line'");
  EXPECT_EQ(error_of(std::string(kSaved) + ": no key\r\n"),
            "line 13 is not 'Key: value': ': no key'");
  EXPECT_EQ(error_of(std::string("Re\x01: 1\n")), "line 1 is not 'Key: value': 'Re\\x01: 1'");
  std::string huge = kSaved;
  huge.resize(kMaxKfrBytes + 1, '\n');
  EXPECT_EQ(error_of(huge), "over 1 MiB (1048577 bytes): not a Kalles Fraktaler location file");
  // Long values are shortened in the message.
  EXPECT_EQ(error_of(with_value("Re", std::string(5000, 'x'))),
            "Re: '" + std::string(40, 'x') + "...' is not a decimal number");
}

TEST(KfrLocation, FormatRefusesWhatParseWould) {
  EXPECT_THROW(format_kfr("nan", "0", "1", 100, 10, 10), std::invalid_argument);
  EXPECT_THROW(format_kfr("0", "0", "0", 100, 10, 10), std::invalid_argument);
  EXPECT_THROW(format_kfr("0", "0", "1", 0, 10, 10), std::invalid_argument);
  EXPECT_THROW(format_kfr("0", "0", "1", 10000001, 10, 10), std::invalid_argument);
  EXPECT_THROW(format_kfr("0", "0", "1e-100000000", 100, 100, 1), std::invalid_argument);
  EXPECT_THROW(format_kfr("0", "0", "1", 100, 10, 0), std::invalid_argument);
  try {
    format_kfr("0", "0", "1e-100000000", 100, 100, 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "span: '1e-100000000' gives a zoom out of range (10^-100000000 to 10^100000000)");
  }
}

TEST(KfrLocation, FilesAreReadWithTheirNameInErrors) {
  const fs::path d = fs::temp_directory_path() / ("mp_kfr_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / "a.kfr", std::ios::binary) << kSaved;
  const KfrResult r = load_kfr(d / "a.kfr");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.iterations, 263010u);

  EXPECT_EQ(load_kfr(d / "none.kfr").error,
            "cannot read " + (d / "none.kfr").string() + ": No such file or directory");
  EXPECT_EQ(load_kfr(d).error, "cannot read " + d.string() + ": not a regular file");
  std::ofstream(d / "bad.kfr", std::ios::binary) << with_value("Zoom", "-2");
  EXPECT_EQ(load_kfr(d / "bad.kfr").error,
            (d / "bad.kfr").string() + ": Zoom: '-2' is not above 0");
  fs::resize_file(d / "bad.kfr", std::uintmax_t{1} << 30);  // sparse: refused before reading
  EXPECT_EQ(load_kfr(d / "bad.kfr").error,
            (d / "bad.kfr").string() +
                ": over 1 MiB (1073741824 bytes): not a Kalles Fraktaler location file");
  fs::remove_all(d);
}

// Bytes of the file in a message are escaped as everywhere else, not turned into '?'.
TEST(KfrLocation, AControlCharacterInAValueIsShownEscaped) {
  const std::string e = error_of(with_value("Iterations", "100\x1b[31m"));
  EXPECT_NE(e.find("100\\x1b[31m"), std::string::npos) << e;
}

// A caller that sets the limit itself (--iters after --location) takes a file whose Iterations
// is out of range; others refuse it.
TEST(KfrLocation, ABadIterationsIsLeftToACallerThatSetsTheLimit) {
  const std::string text = with_value("Iterations", "99999999");
  EXPECT_NE(error_of(text).find("Iterations: '99999999'"), std::string::npos);
  const KfrResult r = parse_kfr(text, true);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.location.iterations, 0u);
  EXPECT_FALSE(parse_kfr(with_value("Zoom", "0"), true).ok);  // the rest is still checked
  // Nor need it be there; where it must, the place's own faults are named first.
  std::string none = kSaved;
  const std::size_t at = none.find("Iterations: ");
  none.erase(at, none.find("\r\n", at) + 2 - at);
  EXPECT_TRUE(parse_kfr(none, true).ok);
  const std::size_t re = none.find("Re: ");
  none.replace(re, none.find("\r\n", re) - re, "Re: nan");
  EXPECT_EQ(error_of(none), "Re: 'nan' is not a decimal number");
}

}  // namespace
}  // namespace mp
