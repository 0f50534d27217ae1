// The user's own bookmarks: kept, read back exactly, shared between windows, and a file that
// cannot be used reported and never overwritten.
#include "io/bookmark_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/settings.h"

namespace mp {
namespace {

namespace fs = std::filesystem;

class BookmarkStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mp-bookmarks-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    file_ = dir_ / "bookmarks.json";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(file_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  void write(const std::string& text) { std::ofstream(file_) << text; }
  std::string read() const {
    std::ifstream in(file_);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_, file_;
};

// A view as text gives it: its centre the decimal it was read from, written back the same.
View view_of(const std::string& x, const std::string& y, const std::string& span, unsigned iters) {
  View v;
  v.span = *parse_span(span);
  v.center_x = *parse_centre(x, v);
  v.center_y = *parse_centre(y, v);
  v.max_iter = iters;
  return v;
}

const View kView = view_of("-1.7548776662466927", "1e-17", "0.0123456789012345", 2048);

TEST_F(BookmarkStoreTest, MissingFileIsNoBookmarksAndNoProblem) {
  BookmarkStore s(file_);
  EXPECT_TRUE(s.bookmarks().empty());
  EXPECT_EQ(s.problem(), "");
  EXPECT_FALSE(fs::exists(file_)) << "nothing written before a bookmark is saved";
}

TEST_F(BookmarkStoreTest, SavedBookmarksReadBackExactly) {
  {
    BookmarkStore s(file_);
    EXPECT_EQ(s.add({"  Period 3  ", kView}), "");
    EXPECT_EQ(s.add({"Whole set", View{}}), "");
    ASSERT_EQ(s.bookmarks().size(), 2u);
    EXPECT_EQ(s.bookmarks()[0].name, "Period 3") << "trimmed";
  }
  BookmarkStore again(file_);
  EXPECT_EQ(again.problem(), "");
  ASSERT_EQ(again.bookmarks().size(), 2u);
  EXPECT_EQ(again.bookmarks()[0].view, kView);
  EXPECT_EQ(again.bookmarks()[1].name, "Whole set");
  // The built-ins' format, so parse_bookmarks reads it as it reads assets/bookmarks.json.
  EXPECT_EQ(parse_bookmarks(read()).size(), 2u);
}

TEST_F(BookmarkStoreTest, SameNameReplacesAndRemoveRemoves) {
  BookmarkStore s(file_);
  ASSERT_EQ(s.add({"a", View{}}), "");
  ASSERT_EQ(s.add({"a", kView}), "");
  ASSERT_EQ(s.bookmarks().size(), 1u);
  EXPECT_EQ(s.bookmarks()[0].view, kView);
  EXPECT_EQ(s.remove("a"), "");
  EXPECT_TRUE(BookmarkStore(file_).bookmarks().empty());
  EXPECT_NE(s.remove("a").find("no bookmark named 'a'"), std::string::npos);
}

TEST_F(BookmarkStoreTest, TwoWindowsKeepEachOthersBookmarks) {
  BookmarkStore one(file_), two(file_);
  ASSERT_EQ(one.add({"from one", kView}), "");
  ASSERT_EQ(two.add({"from two", View{}}), "");
  EXPECT_EQ(BookmarkStore(file_).bookmarks().size(), 2u);
}

// A save edits the file: its other keys, a bookmark's fields of its own and a centre written with
// more digits than its span needs stay as the user wrote them; the replaced bookmark keeps its
// notes too.
TEST_F(BookmarkStoreTest, ASaveKeepsWhatTheFileHoldsBesideTheViews) {
  const std::string precise = "-1.7499764360215873622387315869741734289";
  write(
      "{\n  \"comment\": \"my bookmarks\",\n  \"bookmarks\": [\n"
      "    {\"name\": \"spiral\", \"center\": [-0.7436438870371587, 0.1318259042053119], "
      "\"span\": 1e-10, \"iters\": 20000, \"note\": \"use ocean\", \"tags\": [\"s\"]},\n"
      "    {\"name\": \"precise\", \"center\": [\"" +
      precise + "\", \"0\"], \"span\": \"3\", \"iters\": 100}\n  ]\n}\n");
  BookmarkStore s(file_);
  ASSERT_EQ(s.problem(), "");
  ASSERT_EQ(s.add({"new", kView}), "");
  ASSERT_EQ(s.add({"spiral", kView}), "");  // replaced: its view, not its notes
  ASSERT_EQ(s.remove("new"), "");
  const nlohmann::json j = nlohmann::json::parse(read());
  EXPECT_EQ(j["comment"], "my bookmarks");
  ASSERT_EQ(j["bookmarks"].size(), 2u);
  EXPECT_EQ(j["bookmarks"][0]["note"], "use ocean");
  EXPECT_EQ(j["bookmarks"][0]["tags"][0], "s");
  EXPECT_EQ(j["bookmarks"][0]["iters"], 2048);
  EXPECT_EQ(j["bookmarks"][1]["center"][0], precise);
  ASSERT_EQ(s.bookmarks().size(), 2u);
  EXPECT_EQ(s.bookmarks()[0].view, kView);
}

TEST_F(BookmarkStoreTest, BookmarksThatAreNotAListAreRefused) {
  const std::string text =
      "{\"bookmarks\": {\"a\": {\"name\": \"a\", \"center\": [0, 0], \"span\": 3, "
      "\"iters\": 100}}}";
  write(text);
  BookmarkStore s(file_);
  EXPECT_NE(s.problem().find("is not a list"), std::string::npos) << s.problem();
  EXPECT_NE(s.add({"b", kView}), "");
  EXPECT_EQ(read(), text) << "left as it is";
}

TEST_F(BookmarkStoreTest, DeepViewsKeepEveryDigit) {
  const std::string x = "-1.7400623825793399052" + std::string(1980, '3') + "1";
  const View deep = view_of(x, "0.0000123", "3.25e-2000", 100000);
  BookmarkStore s(file_);
  ASSERT_EQ(s.add({"deep", deep}), "");
  EXPECT_NE(read().find("\"" + x + "\""), std::string::npos) << "the centre as a string";
  EXPECT_NE(read().find("\"3.25e-2000\""), std::string::npos) << "the span as a string";
  const BookmarkStore again(file_);
  ASSERT_EQ(again.bookmarks().size(), 1u);
  EXPECT_EQ(again.bookmarks()[0].view, deep);
}

TEST_F(BookmarkStoreTest, BadNamesAndViewsAreRefusedAndNothingWritten) {
  BookmarkStore s(file_);
  EXPECT_NE(s.add({"   ", kView}).find("needs a name"), std::string::npos);
  EXPECT_NE(s.add({"a\nb", kView}).find("control characters"), std::string::npos);
  EXPECT_NE(s.add({std::string(201, 'x'), kView}).find("at most"), std::string::npos);
  EXPECT_NE(s.add({"\xff\xfe", kView}), "");
  EXPECT_NE(s.add({"zero span", view_at(0, 0, 0, 100)}), "");
  EXPECT_NE(s.add({"no iterations", view_at(0, 0, 1, 0)}), "");
  EXPECT_FALSE(fs::exists(file_));
  EXPECT_TRUE(s.bookmarks().empty());
  EXPECT_EQ(s.add({"Ünïcode ✓", kView}), "");
}

TEST_F(BookmarkStoreTest, ABadFileIsReportedAndNeverOverwritten) {
  for (const std::string bad :
       {std::string("{ not json"), std::string(""), std::string(R"({"bookmarks": 3})"),
        std::string(
            R"({"bookmarks": [{"name": "x", "center": [0, 0], "span": -1, "iters": 5}]})")}) {
    write(bad);
    BookmarkStore s(file_);
    EXPECT_NE(s.problem().find(file_.string()), std::string::npos) << bad;
    EXPECT_EQ(s.problem().find('\n'), std::string::npos) << s.problem();
    EXPECT_TRUE(s.bookmarks().empty());
    EXPECT_NE(s.add({"new", kView}), "") << "saving refused while the file is bad: " << bad;
    EXPECT_NE(s.remove("x"), "");
    EXPECT_EQ(read(), bad) << "kept as it was";
  }
}

TEST_F(BookmarkStoreTest, AFileThatTurnsBadIsNotOverwritten) {
  BookmarkStore s(file_);
  ASSERT_EQ(s.add({"a", kView}), "");
  write("{ edited by hand, badly");
  EXPECT_NE(s.add({"b", kView}), "");
  EXPECT_NE(s.problem(), "");
  EXPECT_EQ(read(), "{ edited by hand, badly");
  EXPECT_EQ(s.bookmarks().size(), 1u) << "the list last read stays on show";
}

TEST_F(BookmarkStoreTest, FoldersFifosAndUnreadableFilesAreRefused) {
  fs::create_directories(file_);
  EXPECT_NE(BookmarkStore(file_).problem(), "");
  EXPECT_NE(BookmarkStore(file_).add({"a", kView}), "");
  EXPECT_TRUE(fs::is_directory(file_));
  fs::remove(file_);

  ASSERT_EQ(mkfifo(file_.c_str(), 0600), 0);
  BookmarkStore fifo(file_);  // must not block
  EXPECT_NE(fifo.problem().find("not a regular file"), std::string::npos) << fifo.problem();
  EXPECT_NE(fifo.add({"a", kView}), "");
  EXPECT_TRUE(fs::is_fifo(file_));
  fs::remove(file_);

  if (geteuid() != 0) {  // root reads anything
    write(R"({"bookmarks": []})");
    fs::permissions(file_, fs::perms::none);
    BookmarkStore locked(file_);
    EXPECT_NE(locked.problem().find("cannot be read"), std::string::npos) << locked.problem();
    EXPECT_NE(locked.add({"a", kView}), "");
    fs::permissions(file_, fs::perms::owner_all);
    EXPECT_EQ(read(), R"({"bookmarks": []})");
  }
}

TEST_F(BookmarkStoreTest, ASymlinkStaysALink) {
  const fs::path target = dir_ / "dotfiles-bookmarks.json";
  std::ofstream(target) << R"({"bookmarks": []})";
  fs::create_symlink(target, file_);
  BookmarkStore s(file_);
  ASSERT_EQ(s.add({"a", kView}), "");
  EXPECT_TRUE(fs::is_symlink(file_));
  EXPECT_EQ(parse_bookmarks(read()).size(), 1u);
}

TEST_F(BookmarkStoreTest, NowhereToKeepThemIsSaid) {
  BookmarkStore s{fs::path()};
  EXPECT_EQ(s.problem(), "");
  EXPECT_NE(s.add({"a", kView}).find("no configuration folder"), std::string::npos);
}

TEST_F(BookmarkStoreTest, PathFollowsXdgConfigHome) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  EXPECT_EQ(user_bookmarks_path(), dir_ / "mandelpipe" / "bookmarks.json");
  if (old)
    setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CONFIG_HOME");
}

TEST_F(BookmarkStoreTest, AFileLargerThanTheCapIsReportedNotRead) {
  {
    std::ofstream out(file_);
    out << R"({"bookmarks": [])";
    out << std::string(kMaxStateFileBytes, ' ') << "}";
  }
  const auto size = fs::file_size(file_);
  BookmarkStore s(file_);
  EXPECT_NE(s.problem().find("larger than 1 MiB, not read"), std::string::npos) << s.problem();
  EXPECT_EQ(s.problem().find('\n'), std::string::npos) << s.problem();
  EXPECT_NE(s.add({"new", kView}), "") << "saving refused while the file is too large";
  EXPECT_EQ(fs::file_size(file_), size) << "kept as it was";
}

}  // namespace
}  // namespace mp
