// The table of bad input a newcomer gives the real binary: one row is one case (the command line,
// the files to lay over a small valid repository, the exit code and the words the answer must
// hold). Each row runs twice, plain and with --json, and must leave every file it found with the
// same SHA-256 and create none outside .kernelbot/: no data loss, no hang (each run is bounded),
// no wrong "ok", and an error that names the file, line or field. The rows live in
// bad_input_rows_*.cpp, one file per kind of input; the runner is bad_input_case.cpp.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace kb::testing {

// A file laid over the repository before the command runs. Paths are relative to the repository;
// a symlink's target is written as given, with "{outside}" standing for the directory that holds
// the repository (where outside.cu and outside.toml lie).
struct RowFile {
  enum class Kind { text, fifo, symlink, directory, unreadable, huge, removed };
  std::string path;
  Kind kind = Kind::text;
  std::string text;          // text and unreadable: the bytes; symlink: the target
  std::uintmax_t bytes = 0;  // huge: the size (a sparse file of zeros after `text`)
};

RowFile text_file(std::string path, std::string text);
RowFile fifo_file(std::string path);
RowFile symlink_file(std::string path, std::string target);
RowFile directory_file(std::string path);
RowFile unreadable_file(std::string path, std::string text);  // mode 000, and root's override dropped
RowFile huge_file(std::string path, std::string text, std::uintmax_t bytes);
RowFile removed_file(std::string path);  // the base repository's file, taken away

// Where the command's stdout goes: captured (and --json read back), a full disk, or a pipe whose
// reader has gone.
enum class RowStdout { captured, dev_full, closed_pipe };

struct BadInputRow {
  std::string name;  // the test's name: letters, digits and '_'
  std::string args;  // after `kernelbot`
  std::vector<RowFile> files;
  int exit_code = 2;
  std::vector<std::string> messages;  // each on stderr; the last also in --json's error
  RowStdout stdout_to = RowStdout::captured;
};

// The repository every row starts from: src/relu.cu (a launcher, a kernel and a template kernel),
// src/relu_ops.h and this kernelbot.toml, which `config check` passes: "relu" (a launcher with a
// tunable) and "scale" (a template kernel's target with literal launch dimensions).
std::string valid_config();
// `text` with the first `old` replaced by `replacement` (`old` must be there).
std::string replaced(const std::string& text, const std::string& old, const std::string& replacement);
// valid_config() with one line replaced.
std::string config_with(const std::string& old, const std::string& replacement);
// `section_text` ("[llm]\nmodel = 1\n") before valid_config(): its second line is line 2.
std::string config_with_section(const std::string& section_text);
// "kernelbot.toml:N:" for the first line of `text` that holds `needle`: where an error must point.
std::string position_of(const std::string& text, const std::string& needle);

class BadInputTable : public ::testing::TestWithParam<BadInputRow> {};

// gtest's name for a row.
std::string row_name(const ::testing::TestParamInfo<BadInputRow>& info);

// For gtest's messages about a failed row.
void PrintTo(const BadInputRow& row, std::ostream* os);

}  // namespace kb::testing
