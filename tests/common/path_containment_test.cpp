// Whether a configured path stays inside the repository once `..` and symlinks are resolved.
#include "common/path_containment.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

TEST(PathContainment, InsideOutsideAndThroughSymlinks) {
  const fs::path base = fs::temp_directory_path() / ("kb_containment_" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "repo" / "src");
  fs::create_directories(base / "repo-other");
  std::ofstream(base / "repo" / "src" / "ops.cu") << "";
  std::ofstream(base / "outside.cu") << "";
  fs::create_symlink(base / "outside.cu", base / "repo" / "link.cu");
  fs::create_symlink(base / "repo" / "src" / "ops.cu", base / "repo" / "inner_link.cu");
  fs::create_directory_symlink(base, base / "repo" / "up");
  const fs::path repo = base / "repo";

  EXPECT_TRUE(kb::resolves_inside(repo, "src/ops.cu"));
  EXPECT_TRUE(kb::resolves_inside(repo, "src/../src/ops.cu"));
  EXPECT_TRUE(kb::resolves_inside(repo, "inner_link.cu"));
  EXPECT_TRUE(kb::resolves_inside(repo, "not/yet/there.cu"));
  EXPECT_TRUE(kb::resolves_inside(repo, repo / "src" / "ops.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "../outside.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "src/../../outside.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "link.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "up/outside.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "../repo-other/x.cu"));
  EXPECT_FALSE(kb::resolves_inside(repo, "/etc/passwd"));
  fs::remove_all(base);
}

TEST(PathContainment, TheRepositoryIsWhereGitIsThenTheWorkingDirectoryThenTheConfigsDirectory) {
  const fs::path base = fs::weakly_canonical(fs::temp_directory_path()) /
                        ("kb_repository_root_" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "checkout" / "ci");
  fs::create_directories(base / "plain" / "ci");
  fs::create_directories(base / "git" / ".git");
  fs::create_directories(base / "git" / "ci");
  // A config in ci/ of a git checkout: the checkout, wherever kernelbot runs.
  EXPECT_EQ(kb::repository_root_of(base / "git" / "ci", "/"), base / "git");
  // Without git data: the working directory when the config is below it...
  EXPECT_EQ(kb::repository_root_of(base / "plain" / "ci", base / "plain"), base / "plain");
  // ...never a working directory beside or below it, then the config's own directory.
  EXPECT_EQ(kb::repository_root_of(base / "plain" / "ci", base / "checkout"), base / "plain" / "ci");
  EXPECT_EQ(kb::repository_root_of(base / "plain", base / "plain" / "ci"), base / "plain");
  fs::remove_all(base);
}
