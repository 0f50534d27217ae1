#include "io/files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mp {
namespace {
namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("mp_files_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(Files, AtomicWriteLeavesOnlyTheFile) {
  const fs::path d = temp_dir();
  write_file_atomic(d / "a.txt", "hello");
  std::ifstream in(d / "a.txt");
  std::string s;
  in >> s;
  EXPECT_EQ(s, "hello");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(d)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1);
  fs::remove_all(d);
}

TEST(Files, UnwritablePlacesFailBeforeAnyWork) {
  EXPECT_THROW(check_writable("/nonexistent-dir/x.png"), std::runtime_error);
  const fs::path d = temp_dir();
  EXPECT_THROW(check_writable(d), std::runtime_error);  // a folder, not a file
  EXPECT_NO_THROW(check_writable(d / "ok.png"));
  EXPECT_FALSE(fs::exists(d / "ok.png"));
  EXPECT_THROW(write_file_atomic("/nonexistent-dir/x.png", "x"), std::runtime_error);
  fs::remove_all(d);
}

// The message a check_writable() failure gives, or "" when it passes.
std::string writable_error(const fs::path& p) {
  try {
    check_writable(p);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Files, AFileWhereAFolderShouldBeIsNamedAsSuch) {
  const fs::path d = temp_dir();
  std::ofstream(d / "plain.txt") << "x";
  for (const fs::path& p : {d / "plain.txt" / "x.png", d / "plain.txt" / "sub" / "x.png"}) {
    const std::string e = writable_error(p);
    EXPECT_NE(e.find((d / "plain.txt").string() + " is not a folder"), std::string::npos) << e;
    EXPECT_EQ(e.find("does not exist"), std::string::npos) << e;
  }
  EXPECT_NE(writable_error(d / "missing" / "x.png")
                .find("folder " + (d / "missing").string() + " does not exist"),
            std::string::npos);
  fs::remove_all(d);
}

TEST(Files, SidecarAndPng) {
  EXPECT_EQ(sidecar_path("out/shot.png"), fs::path("out/shot.json"));
  const std::uint8_t px[2 * 2 * 4] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 9, 9, 9, 255};
  const std::string png = encode_png(2, 2, px);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST(Files, ConfigDirFollowsXdg) {
  const fs::path d = temp_dir();
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", d.c_str(), 1);
  EXPECT_EQ(config_dir(), d / "mandelpipe");
  EXPECT_TRUE(fs::is_directory(d / "mandelpipe"));
  if (old)
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
  fs::remove_all(d);
}

}  // namespace
}  // namespace mp
