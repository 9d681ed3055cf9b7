// `init --config ci/kb.toml`: the starter's paths, written relative to the scanned root, are
// rewritten relative to the directory the config goes to, comments and other keys untouched.
#include "bot/commands/init/config_relative_paths.h"

#include <gtest/gtest.h>

namespace kb::bot {
namespace {

TEST(ConfigRelativePaths, PathKeysArePrefixedOthersAreKept) {
  const std::string text = "[project]\n"
                           "include_dirs = [\"include\", \"third/inc\"]  # check: \"not/a/path\"\n"
                           "# extra_sources = [\"src/extra.cu\"]\n"
                           "\n"
                           "[[kernel]]\n"
                           "name = \"scale\"\n"
                           "source = \"src/scale.cu\"\n"
                           "setup_source = \"TODO\"\n"
                           "launcher = \"src/not_a_path\"\n";
  const std::string out = rebase_config_paths(text, "..");
  EXPECT_EQ(out, "[project]\n"
                 "include_dirs = [\"../include\", \"../third/inc\"]  # check: \"not/a/path\"\n"
                 "# extra_sources = [\"../src/extra.cu\"]\n"
                 "\n"
                 "[[kernel]]\n"
                 "name = \"scale\"\n"
                 "source = \"../src/scale.cu\"\n"
                 "setup_source = \"TODO\"\n"
                 "launcher = \"src/not_a_path\"\n");
  EXPECT_EQ(rebase_config_paths(text, ""), text);
  EXPECT_EQ(rebase_config_paths(text, "."), text);
  EXPECT_EQ(rebase_config_paths("source = \"/abs/a.cu\"\n", ".."), "source = \"/abs/a.cu\"\n");
}

TEST(ConfigRelativePaths, ThePrefixLeadsFromTheConfigsDirectoryToTheRoot) {
  EXPECT_EQ(path_prefix("/repo", "/repo/ci"), std::filesystem::path(".."));
  EXPECT_EQ(path_prefix("/repo", "/repo/a/b"), std::filesystem::path("../.."));
  EXPECT_EQ(path_prefix("/repo", "/repo"), std::filesystem::path("."));
  EXPECT_EQ(path_prefix("/repo/sub", "/repo"), std::filesystem::path("sub"));
}

}  // namespace
}  // namespace kb::bot
