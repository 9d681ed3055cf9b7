// One error vocabulary (core/errors.h): the product throws kb::Error (exit 1) or kb::UsageError
// (exit 2), or a type derived from them, so that main() maps a failure to its exit code by type
// alone. This test reads the product's sources and names, file:line, every bare standard
// exception thrown and every exception type that derives from a standard one directly.
#include "core/errors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kProductFolders = {"common",   "core",   "config", "cuda_source",
                                                  "profiler", "search", "bot"};

// The standard exception types a product throw or base class must not name.
const std::string kStandardErrors =
    "runtime_error|logic_error|invalid_argument|out_of_range|domain_error|length_error|range_error|overflow_error|"
    "underflow_error|exception";

// `text` with each line's // comment blanked (a comment may quote what the code must not do);
// the lines stay where they were.
std::string without_line_comments(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (const size_t at = line.find("//"); at != std::string::npos) line.erase(at);
    out += line + "\n";
  }
  return out;
}

size_t line_at(const std::string& text, size_t offset) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// "file:line: what" for each break of the vocabulary in one file's text. core/errors.h's own
// kb::Error is the one type allowed to derive from std::runtime_error.
std::vector<std::string> vocabulary_breaks(const std::string& file, const std::string& source) {
  static const std::regex bare_throw("throw\\s+std::(" + kStandardErrors + ")\\b");
  static const std::regex standard_base("\\b(struct|class)\\s+(\\w+)(\\s+final)?\\s*:\\s*(public\\s+)?std::(" +
                                        kStandardErrors + ")\\b");
  const std::string text = without_line_comments(source);
  std::vector<std::string> breaks;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), bare_throw); it != std::sregex_iterator(); ++it)
    breaks.push_back(file + ":" + std::to_string(line_at(text, static_cast<size_t>(it->position()))) +
                     ": throws std::" + (*it)[1].str() + ": throw kb::Error or kb::UsageError (core/errors.h)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), standard_base); it != std::sregex_iterator(); ++it) {
    if (file == "core/errors.h" && (*it)[2].str() == "Error") continue;
    breaks.push_back(file + ":" + std::to_string(line_at(text, static_cast<size_t>(it->position()))) + ": " +
                     (*it)[2].str() + " derives from std::" + (*it)[5].str() +
                     ": derive it from kb::Error or kb::UsageError (core/errors.h)");
  }
  return breaks;
}

std::string contents_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool source_file(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".cpp" || ext == ".cu" || ext == ".cuh";
}

}  // namespace

TEST(ErrorVocabulary, UsageErrorIsAnErrorAndBothAreRuntimeErrors) {
  // main() catches UsageError (exit 2) before Error (exit 1); anything that reaches the last
  // catch is still a std::exception with its message.
  static_assert(std::is_base_of_v<kb::Error, kb::UsageError>);
  static_assert(std::is_base_of_v<std::runtime_error, kb::Error>);
  try {
    throw kb::UsageError("--kernel: no such kernel");
  } catch (const kb::Error& e) {
    EXPECT_STREQ(e.what(), "--kernel: no such kernel");
  }
}

TEST(ErrorVocabulary, NoProductFileThrowsOrDerivesFromAStandardExceptionDirectly) {
  size_t files = 0;
  std::vector<std::string> breaks;
  for (const std::string& folder : kProductFolders) {
    const fs::path root = fs::path(KB_SOURCE_DIR) / folder;
    ASSERT_TRUE(fs::is_directory(root)) << root;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || !source_file(entry.path())) continue;
      ++files;
      const std::string name = entry.path().lexically_relative(KB_SOURCE_DIR).string();
      for (auto& b : vocabulary_breaks(name, contents_of(entry.path()))) breaks.push_back(std::move(b));
    }
  }
  EXPECT_GE(files, 300u) << "the scan read too few files to prove anything";
  std::string listed;
  for (const auto& b : breaks) listed += "\n  " + b;
  EXPECT_TRUE(breaks.empty()) << breaks.size() << " breaks of the error vocabulary:" << listed;
}

TEST(ErrorVocabulary, TheScanFindsEachKindOfBreakAndWhere) {
  const std::string source = "#include <stdexcept>\n"
                             "// throw std::runtime_error(\"in a comment: allowed\");\n"
                             "struct Fine : kb::Error {};\n"
                             "struct Stray : std::runtime_error {\n"
                             "  using std::runtime_error::runtime_error;\n"
                             "};\n"
                             "class Split\n"
                             "    : public std::logic_error {};\n"
                             "void f() { throw std::runtime_error(\"x\"); }\n"
                             "void g() {\n"
                             "  throw   std::invalid_argument(\"y\");\n"
                             "}\n";
  const auto breaks = vocabulary_breaks("search/x.cpp", source);
  ASSERT_EQ(breaks.size(), 4u);
  EXPECT_EQ(breaks[0].rfind("search/x.cpp:9: throws std::runtime_error", 0), 0u) << breaks[0];
  EXPECT_EQ(breaks[1].rfind("search/x.cpp:11: throws std::invalid_argument", 0), 0u) << breaks[1];
  EXPECT_EQ(breaks[2].rfind("search/x.cpp:4: Stray derives from std::runtime_error", 0), 0u) << breaks[2];
  EXPECT_EQ(breaks[3].rfind("search/x.cpp:7: Split derives from std::logic_error", 0), 0u) << breaks[3];
  // kb::Error itself is the one allowed, and only in core/errors.h.
  const std::string errors_h = "struct Error : std::runtime_error {};\n";
  EXPECT_TRUE(vocabulary_breaks("core/errors.h", errors_h).empty());
  EXPECT_EQ(vocabulary_breaks("bot/errors.h", errors_h).size(), 1u);
}
