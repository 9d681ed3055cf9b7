// Whole-file writes: the text lands whole or the previous file stays, never through a symlink,
// and a failure names the file and the reason.
#include "common/file_write.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace {

std::string contents_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class FileWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_file_write_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Only the named files are in the directory: no temporary one is left behind.
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

}  // namespace

TEST_F(FileWrite, WritesANewFileAndReplacesAnOldOneKeepingItsMode) {
  const fs::path file = dir_ / "result.json";
  kb::write_file_atomically(file, "first");
  EXPECT_EQ(contents_of(file), "first");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  kb::write_file_atomically(file, std::string("sec\0ond", 7));
  EXPECT_EQ(contents_of(file), std::string("sec\0ond", 7));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  EXPECT_EQ(entries(), 1u);
}

// A target that is a symlink is refused: the file it points to, outside, keeps its bytes.
TEST_F(FileWrite, NeverWritesThroughASymlink) {
  const fs::path outside = dir_ / "outside.txt";
  std::ofstream(outside) << "keep me";
  fs::create_symlink(outside, dir_ / "kernelbot.toml");
  try {
    kb::write_file_atomically(dir_ / "kernelbot.toml", "new");
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + (dir_ / "kernelbot.toml").string() + ": it is a symlink"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(contents_of(outside), "keep me");
  EXPECT_TRUE(fs::is_symlink(dir_ / "kernelbot.toml"));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FileWrite, ANewFileTakesOnlyAFreeName) {
  const fs::path outside = dir_ / "outside.txt";
  std::ofstream(outside) << "keep me";
  fs::create_symlink(outside, dir_ / "kernelbot.toml.bak");
  fs::create_symlink(dir_ / "nowhere", dir_ / "dangling.bak");
  EXPECT_FALSE(kb::write_new_file(dir_ / "kernelbot.toml.bak", "backup"));
  EXPECT_FALSE(kb::write_new_file(dir_ / "dangling.bak", "backup"));
  EXPECT_FALSE(kb::write_new_file(outside, "backup"));
  EXPECT_EQ(contents_of(outside), "keep me");
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
  EXPECT_TRUE(kb::write_new_file(dir_ / "kernelbot.toml.bak.1", "backup"));
  EXPECT_EQ(contents_of(dir_ / "kernelbot.toml.bak.1"), "backup");
}

// A write that fails part way (here: the file-size limit, as a full disk would) names the file
// and the reason, and leaves the previous file and no temporary one.
TEST_F(FileWrite, AFailedWriteLeavesThePreviousFile) {
  const fs::path file = dir_ / "kernelbot.toml";
  std::ofstream(file) << "previous";
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    kb::write_file_atomically(file, std::string(100000, 'x'));
  } catch (const kb::Error& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_NE(message.find("cannot write " + file.string() + ": File too large"), std::string::npos) << message;
  EXPECT_EQ(contents_of(file), "previous");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FileWrite, AMissingDirectoryOrADirectoryTargetIsNamed) {
  try {
    kb::write_file_atomically(dir_ / "no" / "such.json", "x");
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("such.json: No such file or directory"), std::string::npos) << e.what();
  }
  fs::create_directories(dir_ / "out.json");
  try {
    kb::write_file_atomically(dir_ / "out.json", "x");
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}
