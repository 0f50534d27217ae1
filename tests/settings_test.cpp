// The settings file and the other state files: what is read, what is refused with a warning
// (and so left alone), what is written, and that a symlink stays a link.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "io/settings.h"

namespace mp {
namespace {

namespace fs = std::filesystem;

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mp-settings-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "settings.json", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& text) {
    const fs::path p = dir_ / "settings.json";
    std::ofstream(p) << text;
    return p;
  }
  // The warning for this text, or "" when it loads.
  std::string warning_for(const std::string& text) {
    std::string w;
    load_settings(write(text), &w);
    return w;
  }
  fs::path dir_;
};

TEST_F(SettingsTest, MissingIsDefaultsWithoutAWord) {
  std::string w;
  const Settings s = load_settings(dir_ / "settings.json", &w);
  EXPECT_EQ(w, "");
  EXPECT_EQ(s.window_width, Settings{}.window_width);
}

TEST_F(SettingsTest, RoundTrip) {
  Settings s;
  s.window_width = 32;  // as small as the command line allows a window
  s.window_height = 24;
  s.window_x = -1200;
  s.window_y = 40;
  s.palette = "ice";
  s.colour.density = 2.5f;
  save_settings(dir_ / "settings.json", s);
  std::string w;
  const Settings back = load_settings(dir_ / "settings.json", &w);
  EXPECT_EQ(w, "");
  EXPECT_EQ(back.window_width, 32);
  EXPECT_EQ(back.window_height, 24);
  EXPECT_EQ(back.window_x, -1200);
  EXPECT_EQ(back.palette, "ice");
  EXPECT_FLOAT_EQ(back.colour.density, 2.5f);
  // Floats as their shortest decimal, as a person would write them.
  std::ifstream in(dir_ / "settings.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"stripe\": 0.6"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.6000000"), std::string::npos) << text;
}

// The pin (K, --pin) is the session's: an older file's is left unread, without a warning.
TEST_F(SettingsTest, AnOlderFilesPinIsLeftUnread) {
  std::string w;
  const Settings s = load_settings(write("{\"pin_variant\": true, \"ui_scale\": 1.5}"), &w);
  EXPECT_EQ(w, "");
  EXPECT_FLOAT_EQ(s.ui_scale, 1.5f);
}

TEST_F(SettingsTest, WhatTheSaverWritesTheLoaderTakes) {
  // A window dragged past the GL limit, a colour typed out of range: clamped, never refused later.
  Settings s;
  s.window_width = 20000;
  s.window_height = 0;
  s.window_x = 1 << 30;
  s.window_y = 0;
  s.colour.density = std::numeric_limits<float>::infinity();
  s.colour.offset = 1e30f;
  save_settings(dir_ / "settings.json", s);
  std::string w;
  const Settings back = load_settings(dir_ / "settings.json", &w);
  EXPECT_EQ(w, "");
  EXPECT_EQ(back.window_width, kMaxWindowSide);
  EXPECT_EQ(back.window_height, kMinWindowSide);
  EXPECT_EQ(back.window_x, kMaxWindowPosition);
  EXPECT_FLOAT_EQ(back.colour.density, ColourParams{}.density);
  EXPECT_FLOAT_EQ(back.colour.offset, 1.0f);
}

TEST_F(SettingsTest, BadNumbersAreRefusedNotConverted) {
  EXPECT_NE(warning_for(R"({"window_width": 4.8e122})"), "");     // was undefined behaviour
  EXPECT_NE(warning_for(R"({"window_width": 4294967936})"), "");  // wrapped to 640
  EXPECT_NE(warning_for(R"({"window_width": true})"), "");        // read as 1
  EXPECT_NE(warning_for(R"({"window_width": 20000})"), "");
  EXPECT_NE(warning_for(R"({"window_width": -1})"), "");
  EXPECT_NE(warning_for(R"({"window_height": 0})"), "");  // unsigned in JSON: was let through
  EXPECT_NE(warning_for(R"({"window_x": 99999999, "window_y": 0})"), "");
  EXPECT_NE(warning_for(R"({"density": 1e39})"), "");  // past float: was saved back as null
  EXPECT_NE(warning_for(R"({"offset": null})"), "");
  EXPECT_NE(warning_for(R"({"palette": 3})"), "");
  EXPECT_NE(warning_for("[1, 2]"), "");
  EXPECT_NE(warning_for("{"), "");
  EXPECT_EQ(warning_for(R"({"window_width": 32, "window_height": 32})"), "");
}

TEST_F(SettingsTest, AFifoIsRefusedWithoutBlocking) {
  const fs::path p = dir_ / "settings.json";
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  std::string w;
  load_settings(p, &w);  // opening a FIFO for reading would wait for a writer for ever
  EXPECT_NE(w.find("not a regular file"), std::string::npos) << w;
  EXPECT_FALSE(read_state_file(p, &w).has_value());
}

TEST_F(SettingsTest, AFolderIsRefused) {
  fs::create_directories(dir_ / "settings.json");
  std::string w;
  load_settings(dir_ / "settings.json", &w);
  EXPECT_NE(w.find("not a regular file"), std::string::npos) << w;
}

TEST_F(SettingsTest, AnUnreadableFileIsReported) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads a file of mode 000 (run as a user to test)";
  const fs::path p = write(R"({"window_width": 800})");
  fs::permissions(p, fs::perms::none);
  std::string w;
  load_settings(p, &w);
  EXPECT_NE(w.find("cannot be read"), std::string::npos) << w;
}

TEST_F(SettingsTest, ASymlinkStaysALink) {
  // A dotfiles repository links settings.json to a file of its own.
  const fs::path real = dir_ / "dotfiles-settings.json";
  std::ofstream(real) << "{}";
  const fs::path link = dir_ / "settings.json";
  fs::create_symlink(real, link);
  Settings s;
  s.window_width = 900;
  save_settings(link, s);
  EXPECT_TRUE(fs::is_symlink(link));
  std::string w;
  EXPECT_EQ(load_settings(real, &w).window_width, 900);
}

TEST_F(SettingsTest, AnEmptyLayoutFileReadsAsEmpty) {
  // ImGui 1.86 reads past an empty buffer: the caller gets "" and loads nothing from it.
  const fs::path p = dir_ / "imgui.ini";
  std::ofstream(p).flush();
  std::string w;
  const auto text = read_state_file(p, &w);
  ASSERT_TRUE(text.has_value());
  EXPECT_TRUE(text->empty());
  EXPECT_EQ(w, "");
}

// A file of `bytes` bytes of JSON whitespace, so that only its size can make it refused.
void write_spaces(const fs::path& p, std::uintmax_t bytes) {
  std::ofstream out(p);
  out << "{}";
  for (std::uintmax_t k = 2; k < bytes; ++k) out << ' ';
}

TEST_F(SettingsTest, AFileLargerThanItsCapIsNotRead) {
  const fs::path p = dir_ / "settings.json";
  write_spaces(p, kMaxStateFileBytes);
  std::string w;
  EXPECT_TRUE(read_state_file(p, &w).has_value());
  EXPECT_EQ(w, "");
  write_spaces(p, kMaxStateFileBytes + 1);
  EXPECT_FALSE(read_state_file(p, &w).has_value());
  EXPECT_EQ(w, "ignoring " + p.string() + ": larger than 1 MiB, not read");
  w.clear();
  load_settings(p, &w);
  EXPECT_NE(w.find("larger than 1 MiB"), std::string::npos) << w;
  // ImGui's layout has a cap of its own.
  w.clear();
  EXPECT_TRUE(read_state_file(p, &w, kMaxLayoutFileBytes).has_value());
  write_spaces(p, kMaxLayoutFileBytes + 1);
  EXPECT_FALSE(read_state_file(p, &w, kMaxLayoutFileBytes).has_value());
  EXPECT_NE(w.find("larger than 4 MiB"), std::string::npos) << w;
}

TEST_F(SettingsTest, UnknownKeysAndPalettesAreKept) {
  const fs::path p = write(
      R"({"from_a_newer_version": {"a": [1, 2]}, "palette": "not-yet-shipped", "density": 2})");
  std::string w;
  Settings s = load_settings(p, &w);
  ASSERT_EQ(w, "");
  EXPECT_EQ(s.palette, "not-yet-shipped");
  s.colour.density = 3;
  save_settings(p, s);
  std::ifstream in(p);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(R"("from_a_newer_version": {)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("palette": "not-yet-shipped")"), std::string::npos) << text;
  EXPECT_FLOAT_EQ(load_settings(p, &w).colour.density, 3.0f);
}

TEST_F(SettingsTest, ADanglingSymlinkIsWrittenThroughAndKeepsItsMode) {
  const fs::path real = dir_ / "dotfiles" / "settings.json";
  fs::create_directories(real.parent_path());
  const fs::path link = dir_ / "settings.json";
  fs::create_symlink("dotfiles/settings.json", link);  // relative, and nothing there yet
  save_settings(link, Settings{});
  EXPECT_TRUE(fs::is_symlink(link));
  ASSERT_TRUE(fs::is_regular_file(real));
  fs::permissions(real, fs::perms::owner_read | fs::perms::owner_write);
  save_settings(link, Settings{});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::status(real).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(SettingsTest, ASymlinkLoopIsRefusedNotReplaced) {
  const fs::path a = dir_ / "settings.json", b = dir_ / "other.json";
  fs::create_symlink(b, a);
  fs::create_symlink(a, b);
  EXPECT_THROW(save_settings(a, Settings{}), std::runtime_error);
  EXPECT_TRUE(fs::is_symlink(a));
  EXPECT_TRUE(fs::is_symlink(b));
}

}  // namespace
}  // namespace mp
