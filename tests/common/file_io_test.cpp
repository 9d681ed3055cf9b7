// Whole-file reads: bytes exact (binary, no newline translation), errors that name the file.
#include "common/file_io.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "tests/support/file_permissions_apply.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("kb_file_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST(FileIo, ReadsEveryByteIncludingNulsAndCarriageReturns) {
  const fs::path file = scratch_dir() / "bytes.bin";
  const std::string bytes("a\r\nb\0c\n", 7);
  std::ofstream(file, std::ios::binary) << bytes;
  EXPECT_EQ(kb::read_text_file(file), bytes);
  EXPECT_EQ(kb::try_read_text_file(file).value(), bytes);
  fs::remove_all(file.parent_path());
}

TEST(FileIo, AMissingFileIsAnErrorNamingItOrNullopt) {
  const fs::path missing = scratch_dir() / "no_such_file.txt";
  EXPECT_FALSE(kb::try_read_text_file(missing).has_value());
  try {
    kb::read_text_file(missing);
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read " + missing.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  try {
    kb::read_text_file(missing.parent_path());
    FAIL() << "expected an error";
  } catch (const kb::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  fs::remove_all(missing.parent_path());
}

// What the message says about a path that is refused; "" when it was read.
static std::string refusal(const fs::path& path, std::uintmax_t limit = kb::kUserFileLimitBytes) {
  try {
    kb::read_text_file(path, limit);
    return "";
  } catch (const kb::Error& e) {
    return e.what();
  }
}

class FileIoRefuses : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_file_io_refuses_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// A FIFO with no writer would block an ordinary open forever: it is refused at once, by name.
TEST_F(FileIoRefuses, AFifoWithoutBlocking) {
  const fs::path fifo = dir_ / "kernelbot.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const std::string message = refusal(fifo);
  EXPECT_NE(message.find("cannot read " + fifo.string()), std::string::npos) << message;
  EXPECT_NE(message.find("it is a FIFO (named pipe), not a regular file"), std::string::npos) << message;
  EXPECT_THROW(kb::try_read_text_file(fifo), kb::Error);
  EXPECT_FALSE(kb::read_text_file_if_readable(fifo).has_value());
}

// /dev/zero never ends: refused as a device, and the symlink that leads there is named as one.
TEST_F(FileIoRefuses, ADeviceAlsoBehindASymlink) {
  const fs::path link = dir_ / "ops.cu";
  fs::create_symlink("/dev/zero", link);
  const std::string message = refusal(link);
  EXPECT_NE(message.find(link.string() + " (a symlink to /dev/zero)"), std::string::npos) << message;
  EXPECT_NE(message.find("it is a character device"), std::string::npos) << message;
  EXPECT_NE(refusal("/dev/null").find("it is a character device"), std::string::npos);
}

TEST_F(FileIoRefuses, ADirectoryAlsoBehindASymlink) {
  fs::create_directories(dir_ / "src");
  fs::create_directory_symlink(dir_ / "src", dir_ / "link.cu");
  EXPECT_NE(refusal(dir_ / "src").find("it is a directory, not a regular file"), std::string::npos);
  EXPECT_NE(refusal(dir_ / "link.cu").find("(a symlink to " + (dir_ / "src").string() + "): it is a directory"),
            std::string::npos)
      << refusal(dir_ / "link.cu");
}

TEST_F(FileIoRefuses, ASocket) {
  const fs::path path = dir_ / "sock.cu";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_NE(refusal(path).find("it is a socket, not a regular file"), std::string::npos) << refusal(path);
  ::close(fd);
}

// The limit is stated in the message; a file at the limit is read whole.
TEST_F(FileIoRefuses, AFileOverTheSizeLimitSayingTheLimit) {
  const fs::path file = dir_ / "big.cu";
  std::ofstream(file, std::ios::binary) << std::string(2 << 20, 'x');
  EXPECT_NE(refusal(file, 1 << 20).find("it is larger than the 1 MiB limit for this file"), std::string::npos)
      << refusal(file, 1 << 20);
  EXPECT_EQ(kb::read_text_file(file, 2 << 20).size(), std::size_t{2} << 20);
  EXPECT_EQ(kb::format_byte_limit(kb::kUserFileLimitBytes), "16 MiB");
  EXPECT_EQ(kb::format_byte_limit(kb::kDataFileLimitBytes), "1 GiB");
}

// /proc files say they are empty (st_size 0): read to the end, not to st_size.
TEST_F(FileIoRefuses, NothingReadableThatSaysItIsEmptyIsCutShort) {
  EXPECT_NE(kb::read_text_file("/proc/self/status").find("Pid:"), std::string::npos);
}

// Also as root (CI): the read runs without the capabilities that let root ignore a file's mode.
TEST_F(FileIoRefuses, AFileWithoutPermissionWithErrnoText) {
  const fs::path file = dir_ / "secret.cu";
  std::ofstream(file) << "x";
  fs::permissions(file, fs::perms::none);
  std::string why;
  {
    kb::testing::FilePermissionsApply permissions_apply;
    why = refusal(file);
  }
  EXPECT_NE(why.find("cannot read " + file.string() + ": Permission denied"), std::string::npos) << why;
  // try_read_text_file says "cannot read" too: the file is there, only unreadable.
  kb::testing::FilePermissionsApply permissions_apply;
  EXPECT_THROW(kb::try_read_text_file(file), kb::Error);
}

TEST_F(FileIoRefuses, ADanglingSymlinkIsMissingAndALoopIsNamed) {
  fs::create_symlink(dir_ / "gone.cu", dir_ / "ops.cu");
  EXPECT_FALSE(kb::try_read_text_file(dir_ / "ops.cu").has_value());
  EXPECT_NE(refusal(dir_ / "ops.cu").find("No such file or directory"), std::string::npos) << refusal(dir_ / "ops.cu");
  fs::create_symlink(dir_ / "b.cu", dir_ / "a.cu");
  fs::create_symlink(dir_ / "a.cu", dir_ / "b.cu");
  EXPECT_NE(refusal(dir_ / "a.cu").find("Too many levels of symbolic links"), std::string::npos)
      << refusal(dir_ / "a.cu");
}
