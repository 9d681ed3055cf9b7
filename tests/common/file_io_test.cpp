// Whole-file reads: bytes exact (binary, no newline translation), errors that name the file.
#include "common/file_io.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"

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
