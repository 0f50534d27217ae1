#include "io/exr_file.h"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfIntAttribute.h>
#include <ImfStringAttribute.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "exr_values.h"
#include "io/files.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("mp_exr_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::vector<std::string> names_in(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Pixels {
  std::vector<std::uint32_t> n;
  std::vector<float> nf;
};

// Escaped pixels with smooth values spread over a few hundred iterations, every seventh interior.
Pixels test_pixels(int width, int height) {
  Pixels p;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> smooth(-3.0f, 400.0f);
  for (int i = 0; i < width * height; ++i) {
    const ExrSample s = i % 7 == 3 ? ExrSample{kExrInterior, 0.0f} : exr_escaped(smooth(rng));
    p.n.push_back(s.n);
    p.nf.push_back(s.nf);
  }
  return p;
}

// The pixels written a band at a time, bands of these heights in turn, and the image finished.
void write_in_bands(ExrStream& out, const Pixels& p, int width, std::initializer_list<int> bands) {
  int row = 0;
  for (const int band : bands) {
    const std::size_t at = static_cast<std::size_t>(row) * width;
    out.write_rows(p.n.data() + at, p.nf.data() + at, band);
    row += band;
  }
  out.finish();
}

std::string string_attribute(const Imf::Header& h, const char* name) {
  const auto* a = h.findTypedAttribute<Imf::StringAttribute>(name);
  return a ? a->value() : "(missing)";
}

TEST(ExrFile, EscapedValuesSplitIntoBiasedWholeAndFraction) {
  const ExrSample a = exr_escaped(12.25f);
  EXPECT_EQ(a.n, 12u + kExrIterationsBias);
  EXPECT_EQ(a.nf, 0.25f);
  const ExrSample b = exr_escaped(-2.5f);  // a far pixel that escaped at once
  EXPECT_EQ(b.n, kExrIterationsBias - 3);
  EXPECT_EQ(b.nf, 0.5f);
  const ExrSample c = exr_escaped(-1e-9f);  // 1 - 1e-9 rounds to 1 in float: held below it
  EXPECT_EQ(c.n, kExrIterationsBias - 1);
  EXPECT_LT(c.nf, 1.0f);
  EXPECT_THROW(exr_escaped(std::nanf("")), std::invalid_argument);
}

TEST(ExrFile, TwoBandsReadBackExactlyWithTheirAttributes) {
  const fs::path d = temp_dir();
  const fs::path path = d / "key.exr";
  constexpr int kWidth = 13, kHeight = 9, kFirstBand = 5;
  const Pixels p = test_pixels(kWidth, kHeight);
  const std::map<std::string, std::string> view{{"mandelpipe.center_x", "-0.75"},
                                                {"mandelpipe.center_y", "0.1"},
                                                {"mandelpipe.span", "3.5e-12"},
                                                {"mandelpipe.iters", "5000"}};
  {
    ExrStream out(path, kWidth, kHeight, 5000, view);
    out.write_rows(p.n.data(), p.nf.data(), kFirstBand);
    EXPECT_FALSE(fs::exists(path)) << "visible before it is whole";
    const std::size_t at = std::size_t{kWidth} * kFirstBand;
    out.write_rows(p.n.data() + at, p.nf.data() + at, kHeight - kFirstBand);
    out.finish({{d / "key.json", "{}\n"}});
  }
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"key.exr", "key.json"}));

  Imf::InputFile in(path.c_str());
  const Imf::Header& h = in.header();
  const Imath::Box2i dw = h.dataWindow();
  ASSERT_EQ(dw.max.x - dw.min.x + 1, kWidth);
  ASSERT_EQ(dw.max.y - dw.min.y + 1, kHeight);
  ASSERT_NE(h.channels().findChannel("N"), nullptr);
  ASSERT_NE(h.channels().findChannel("NF"), nullptr);
  EXPECT_EQ(h.channels().findChannel("N")->type, Imf::UINT);
  EXPECT_EQ(h.channels().findChannel("NF")->type, Imf::FLOAT);
  for (const auto& [name, value] : view) EXPECT_EQ(string_attribute(h, name.c_str()), value);
  const auto* iters = h.findTypedAttribute<Imf::IntAttribute>("Iterations");
  const auto* bias = h.findTypedAttribute<Imf::IntAttribute>("IterationsBias");
  ASSERT_TRUE(iters && bias);
  EXPECT_EQ(iters->value(), 5000);
  EXPECT_EQ(bias->value(), static_cast<int>(kExrIterationsBias));

  const ExrValues v = exr_values(in);
  ASSERT_EQ(v.n.size(), p.n.size());
  for (std::size_t i = 0; i < v.n.size(); ++i) {
    ASSERT_EQ(v.n[i], p.n[i]) << "pixel " << i;
    ASSERT_EQ(v.nf[i], p.nf[i]) << "pixel " << i;
  }
  fs::remove_all(d);
}

// Each compression --exr-compression names: its header says it, the values come back exactly
// (lossless), in bands of 5 and 35 rows across PIZ's 32-line blocks, and the names round-trip.
TEST(ExrFile, EveryCompressionReadsBackExactly) {
  const fs::path d = temp_dir();
  constexpr int kWidth = 57, kHeight = 40, kFirstBand = 5;
  const Pixels p = test_pixels(kWidth, kHeight);
  const std::pair<ExrCompression, Imf::Compression> kinds[] = {
      {ExrCompression::zip, Imf::ZIP_COMPRESSION},
      {ExrCompression::piz, Imf::PIZ_COMPRESSION},
      {ExrCompression::rle, Imf::RLE_COMPRESSION},
      {ExrCompression::none, Imf::NO_COMPRESSION}};
  for (const auto& [ours, theirs] : kinds) {
    const std::string name = exr_compression_name(ours);
    EXPECT_EQ(exr_compression_named(name), ours);
    const fs::path path = d / (name + ".exr");
    {
      ExrStream out(path, kWidth, kHeight, 400, {}, ours);
      out.write_rows(p.n.data(), p.nf.data(), kFirstBand);
      const std::size_t at = std::size_t{kWidth} * kFirstBand;
      out.write_rows(p.n.data() + at, p.nf.data() + at, kHeight - kFirstBand);
      out.finish();
    }
    EXPECT_LE(fs::file_size(path), exr_bytes_at_most(kWidth, kHeight, {})) << name;
    Imf::InputFile in(path.c_str());
    EXPECT_EQ(in.header().compression(), theirs) << name;
    const ExrValues v = exr_values(in);
    EXPECT_EQ(v.n, p.n) << name;
    EXPECT_EQ(v.nf, p.nf) << name;
  }
  EXPECT_EQ(exr_compression_named("ZIP"), std::nullopt);
  EXPECT_EQ(exr_compression_named("b44"), std::nullopt);
  fs::remove_all(d);
}

// The per-pixel shortcut gives exr_escaped's N and NF bit for bit (the interior where negative),
// and its errors.
TEST(ExrFile, APixelsSampleIsTheEscapedValuesBitForBit) {
  std::vector<float> values = {
      0.0f,         -0.0f,      1e-40f,      0.5f,        std::nextafter(1.0f, 0.0f),
      1.0f,         8388607.5f, 16777216.0f, 16777218.0f, 2147483520.0f,
      2147483648.0f};
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i)
    values.push_back(std::exp2(std::uniform_real_distribution<float>(-20.0f, 31.0f)(rng)));
  for (const float v : values) {
    const ExrSample a = exr_sample(v), b = exr_escaped(v);
    EXPECT_EQ(a.n, b.n) << v;
    EXPECT_EQ(std::memcmp(&a.nf, &b.nf, sizeof(float)), 0) << v << ": " << a.nf << ", " << b.nf;
  }
  for (const float v : {-1.0f, -1e-30f, -3000.0f}) {
    EXPECT_EQ(exr_sample(v).n, kExrInterior);
    EXPECT_EQ(exr_sample(v).nf, 0.0f);
  }
  EXPECT_THROW(exr_sample(std::nanf("")), std::invalid_argument);
  EXPECT_THROW(exr_sample(4294967296.0f), std::invalid_argument);
  EXPECT_THROW(exr_sample(INFINITY), std::invalid_argument);
}

// ZIP's chunks (16 lines) filled across bands of any height, compressed many at once on OpenEXR's
// threads (batches of twice their number) and stored smaller than the rows: every value back.
TEST(ExrFile, ZipChunksFromBandsOfAnyHeightOnManyThreadsReadBackExactly) {
  const fs::path d = temp_dir();
  constexpr int kWidth = 301, kHeight = 333;
  Pixels p = test_pixels(kWidth, kHeight);
  for (int i = 0; i < kWidth * 40; ++i) p.n[static_cast<std::size_t>(i)] = 1100;  // a flat part
  set_exr_threads(3);
  {
    ExrStream out(d / "zip.exr", kWidth, kHeight, 400, {{"mandelpipe.span", "1e-400"}});
    write_in_bands(out, p, kWidth, {1, 17, 100, 15, 200});
  }
  set_exr_threads(0);
  Imf::InputFile in((d / "zip.exr").c_str());
  EXPECT_EQ(in.header().compression(), Imf::ZIP_COMPRESSION);
  EXPECT_EQ(string_attribute(in.header(), "mandelpipe.span"), "1e-400");
  EXPECT_EQ(in.header().typedAttribute<Imf::IntAttribute>("Iterations").value(), 400);
  const ExrValues v = exr_values(in);
  EXPECT_EQ(v.n, p.n);
  EXPECT_EQ(v.nf, p.nf);
  EXPECT_LT(fs::file_size(d / "zip.exr"), std::uintmax_t{kWidth} * kHeight * 8 * 3 / 4);
  fs::remove_all(d);
}

// Chunks that deflate cannot shrink are stored as their lines are, whether their lines came in
// one call (read from the caller's rows) or across calls (laid out first), beside chunks that do
// shrink: every bit back.
TEST(ExrFile, ZipChunksDeflateCannotShrinkAreStoredAsTheirLines) {
  const fs::path d = temp_dir();
  constexpr int kWidth = 203, kHeight = 70;
  constexpr std::size_t kPixels = std::size_t{kWidth} * kHeight;
  Pixels p = test_pixels(kWidth, kHeight);
  std::mt19937 rng(11);
  std::vector<std::uint32_t> nf_bits(kPixels);
  for (std::size_t i = 0; i < kPixels; ++i) {
    nf_bits[i] = rng();
    if (i >= std::size_t{kWidth} * 16) p.n[i] = rng();  // all but the first chunk random
  }
  std::memcpy(p.nf.data(), nf_bits.data(), kPixels * sizeof(float));
  {
    ExrStream out(d / "stored.exr", kWidth, kHeight, 400);
    write_in_bands(out, p, kWidth, {16, 16, 5, 11, 22});
  }
  Imf::InputFile in((d / "stored.exr").c_str());
  const ExrValues v = exr_values(in);
  EXPECT_EQ(v.n, p.n);
  ASSERT_EQ(v.nf.size(), kPixels);
  EXPECT_EQ(std::memcmp(v.nf.data(), nf_bits.data(), kPixels * sizeof(float)), 0);
  // The random chunks take their lines' bytes, the first chunk much less.
  EXPECT_GT(fs::file_size(d / "stored.exr"), (kPixels - std::size_t{kWidth} * 8) * 8);
  fs::remove_all(d);
}

// --resume's test of a kept EXR: whole in every compression, and not once cut anywhere after its
// header, a byte short included (the last block's end, which the table of blocks does not show).
TEST(ExrFile, AFileCutShortAnywhereIsNotWhole) {
  const fs::path d = temp_dir();
  const Pixels p = test_pixels(57, 40);
  for (const ExrCompression c :
       {ExrCompression::zip, ExrCompression::piz, ExrCompression::rle, ExrCompression::none}) {
    const fs::path path = d / "whole.exr", cut = d / "cut.exr";
    {
      ExrStream out(path, 57, 40, 400, {}, c);
      out.write_rows(p.n.data(), p.nf.data(), 40);
      out.finish();
    }
    EXPECT_TRUE(exr_complete(path)) << exr_compression_name(c);
    const auto size = fs::file_size(path);
    for (const auto keep : {size - 1, size - 100, size / 2, std::uintmax_t{400}}) {
      fs::copy_file(path, cut, fs::copy_options::overwrite_existing);
      fs::resize_file(cut, keep);
      EXPECT_FALSE(exr_complete(cut)) << exr_compression_name(c) << ", " << keep << " bytes";
    }
  }
  std::ofstream(d / "text.exr") << "not an EXR";
  EXPECT_FALSE(exr_complete(d / "text.exr"));
  EXPECT_FALSE(exr_complete(d / "missing.exr"));
  fs::remove_all(d);
}

TEST(ExrFile, AMissingFolderFailsInOneLineAndLeavesNothing) {
  const fs::path d = temp_dir();
  const fs::path path = d / "missing" / "key.exr";
  try {
    ExrStream out(path, 4, 4, 100);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what, "cannot write " + path.string() + ": No such file or directory");
  }
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

TEST(ExrFile, AnUnfinishedImageLeavesNothing) {
  const fs::path d = temp_dir();
  const Pixels p = test_pixels(8, 8);
  {
    ExrStream out(d / "key.exr", 8, 8, 100);
    out.write_rows(p.n.data(), p.nf.data(), 4);
    EXPECT_THROW(out.finish(), std::logic_error);
    EXPECT_THROW(out.write_rows(p.n.data(), p.nf.data(), 5), std::logic_error);
  }
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

TEST(ExrFile, BadSizesAndAttributeNamesAreRefusedBeforeAnyFile) {
  const fs::path d = temp_dir();
  EXPECT_THROW(ExrStream(d / "a.exr", 0, 4, 100), std::invalid_argument);
  EXPECT_THROW(ExrStream(d / "a.exr", 4, 4, 100, {{"", "x"}}), std::invalid_argument);
  EXPECT_THROW(ExrStream(d / "a.exr", 4, 4, 100, {{"IterationsBias", "x"}}), std::invalid_argument);
  EXPECT_THROW(ExrStream(d / "a.exr", 4, 4, 100, {{"channels", "x"}}), std::invalid_argument);
  EXPECT_EQ(names_in(d), std::vector<std::string>{});
  fs::remove_all(d);
}

// Waits for a forked child; its exit code, or 1000 + the signal that ended it.
int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

TEST(ExrFile, AFullDiskFailsInOneLineAndLeavesNothing) {
  const fs::path d = temp_dir();
  for (const ExrCompression c : {ExrCompression::zip, ExrCompression::piz}) {
    const pid_t pid = fork();
    if (pid == 0) {
      install_cleanup_on_signals();  // SIGXFSZ ignored: the write fails with EFBIG instead
      rlimit lim{};
      getrlimit(RLIMIT_FSIZE, &lim);
      lim.rlim_cur = 20000;  // the random fractions do not compress to this
      setrlimit(RLIMIT_FSIZE, &lim);
      const Pixels p = test_pixels(256, 256);
      try {
        ExrStream out(d / "big.exr", 256, 256, 1000, {}, c);
        for (int row = 0; row < 256; row += 64)
          out.write_rows(&p.n[row * 256], &p.nf[row * 256], 64);
        out.finish();
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        _exit(what.find("File too large") != std::string::npos &&
                      what.find('\n') == std::string::npos
                  ? 3
                  : 4);
      }
      _exit(0);
    }
    EXPECT_EQ(wait_for(pid), 3) << "3: failed with EFBIG in one line, " << exr_compression_name(c);
    EXPECT_EQ(names_in(d), std::vector<std::string>{});
  }
  fs::remove_all(d);
}

}  // namespace
}  // namespace mp
