// The free-space check before a render: the most its files can take, held against what the file
// systems they go to have free, and those most-bytes figures never below what is written.
#include "io/disk_space.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "io/exr_file.h"
#include "io/png_stream.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

// The message check_room() throws, or "" when the needs fit.
std::string refusal(const std::vector<Need>& needs, const SpaceOf& space) {
  try {
    check_room(needs, "o.png and its sidecar", space);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Two file systems: "/a" with 1000 bytes free, "/b" with 10 MiB; "/c" cannot be read.
std::optional<Space> two_disks(const fs::path& folder) {
  if (folder == "/a") return Space{1, 1000};
  if (folder == "/b") return Space{2, 10 << 20};
  return std::nullopt;
}

TEST(DiskSpace, NeedsGoingToOneFileSystemAddUp) {
  EXPECT_EQ(refusal({{"/a/o.png", 600}, {"/b/o.exr", 5 << 20}}, two_disks), "");
  const std::string e = refusal({{"/a/o.png", 600}, {"/a/o.json", 600}}, two_disks);
  EXPECT_NE(e.find("cannot write o.png and its sidecar: up to 1 KiB needed"), std::string::npos)
      << e;
  EXPECT_NE(e.find("more than the 1 KiB free in the file system of /a"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(refusal({{"/b/o.png", 11 << 20}}, two_disks).find("up to 11.0 MiB needed"),
            std::string::npos);
  // Where the space cannot be read, nothing is refused.
  EXPECT_EQ(refusal({{"/c/o.png", 1ull << 50}}, two_disks), "");
}

TEST(DiskSpace, AFolderStillToBeMadeIsInTheFileSystemAboveIt) {
  const fs::path here = fs::temp_directory_path();
  const std::optional<Space> made = space_of(here), to_be = space_of(here / "not" / "yet");
  ASSERT_TRUE(made);
  ASSERT_TRUE(to_be);
  EXPECT_EQ(made->device, to_be->device);
  EXPECT_TRUE(space_of("not-yet-made/either"));  // under the working folder
}

class Bounds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mp_disk_space_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::mt19937 noise_{1};
};

// Noise does not compress: the most a PNG takes is what one of noise takes, and not much more,
// at every level (0 stores).
TEST_F(Bounds, APngOfNoiseIsWithinItsBound) {
  for (const auto& [w, h] : {std::pair(1, 1), std::pair(1000, 300), std::pair(7, 4000)})
    for (const int level : {kMinPngLevel, kDefaultPngLevel, kMaxPngLevel}) {
      const fs::path file = dir_ / "noise.png";
      {
        std::FILE* out = std::fopen(file.c_str(), "wb");
        ASSERT_NE(out, nullptr);
        PngBlockWriter png(out, file.string(), w, h, level);
        PngBlockEncoder encoder(level);
        const int per = png_block_rows(w);
        std::vector<std::uint8_t> rows(3 * static_cast<std::size_t>(w) * per);
        PngBlock block;
        for (int y = 0; y < h; y += per) {
          const int n = std::min(per, h - y);
          for (std::uint8_t& b : rows) b = static_cast<std::uint8_t>(noise_());
          encoder.encode(rows.data(), w, n, y + n == h, block);
          png.write(block);
        }
        ASSERT_EQ(std::fclose(out), 0);
      }
      const std::uint64_t written = fs::file_size(file), bound = png_bytes_at_most(w, h);
      EXPECT_LE(written, bound) << w << "x" << h << " at level " << level;
      const double rows = static_cast<double>(h) * (1 + 3.0 * w);
      EXPECT_LT(static_cast<double>(bound), rows * 1.05 + 256) << w << "x" << h;
    }
}

TEST_F(Bounds, AnExrOfNoiseIsWithinItsBound) {
  const std::map<std::string, std::string> attributes = {
      {"mandelpipe.center_x", std::string(3000, '1')}, {"mandelpipe.span", "1e-3000"}};
  for (const auto& [w, h] : {std::pair(1, 1), std::pair(640, 100), std::pair(3, 1000)}) {
    const fs::path file = dir_ / "noise.exr";
    {
      ExrStream exr(file, w, h, 1000, attributes);
      std::vector<std::uint32_t> n(static_cast<std::size_t>(w) * h);
      std::vector<float> nf(n.size());
      for (std::size_t i = 0; i < n.size(); ++i) {
        n[i] = noise_();
        nf[i] = std::uniform_real_distribution<float>(0, 1)(noise_);
      }
      exr.write_rows(n.data(), nf.data(), h);
      exr.finish();
    }
    EXPECT_LE(fs::file_size(file), exr_bytes_at_most(w, h, attributes)) << w << "x" << h;
  }
}

}  // namespace
}  // namespace mp
