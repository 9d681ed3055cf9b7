// docs/contributing.md's recipes name the files a change touches: every path it quotes must exist,
// so a recipe fails `make test` the day a file it sends a contributor to moves or goes. A path with
// a placeholder (`bot/commands/<verb>_command.cpp`) must have its folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string contributing_page() {
  std::ifstream in(KB_SOURCE_DIR "/docs/contributing.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The backticked spans that read as paths of the tree: a folder separator, no spaces.
std::vector<std::string> quoted_paths(const std::string& page) {
  static const std::regex quoted("`([A-Za-z0-9_.<>-]+/[A-Za-z0-9_./<>-]*)`");
  std::vector<std::string> paths;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), quoted); it != std::sregex_iterator(); ++it)
    paths.push_back((*it)[1].str());
  return paths;
}

}  // namespace

TEST(ContributingDoc, QuotesPathsAtAll) {
  // The check below proves nothing if the page or its quoting changed shape.
  EXPECT_GE(quoted_paths(contributing_page()).size(), 30u);
}

TEST(ContributingDoc, EveryPathItNamesExists) {
  for (const std::string& path : quoted_paths(contributing_page())) {
    const bool placeholder = path.find('<') != std::string::npos;
    const fs::path checked = fs::path(KB_SOURCE_DIR) / (placeholder ? fs::path(path).parent_path() : fs::path(path));
    EXPECT_TRUE(fs::exists(checked)) << "docs/contributing.md names " << path << ", which is not in the tree";
  }
}

TEST(ContributingDoc, TheCheckFindsAMissingPath) {
  const auto paths = quoted_paths("see `profiler/judge/no_such_pass.cpp` and `docs/verdicts.md`");
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_FALSE(fs::exists(fs::path(KB_SOURCE_DIR) / paths[0]));
  EXPECT_TRUE(fs::exists(fs::path(KB_SOURCE_DIR) / paths[1]));
}
