// The include rules of profiler/'s folders, held to the code. Every folder under profiler/ that
// holds code has a README.md ending its rules with a line such as
//   May include: core, common, profiler/judge/inputs, profiler/device_query.h
// (paths from the repository's root: a folder, or one file). A file's `#include "..."` must name a
// file of its own folder or one under an entry of that line; anything else fails here with the
// file and line, so an arrow between folders is added on purpose (in the README) or not at all.
// The rules of the folders must also form a ladder (no two folders allowed to include each other,
// directly or round a loop), and no folder of profiler/ grows past 40 files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace include_rules {

// One folder's rules, read from its README.md: `ruled` is false when the README is missing or
// has no `May include:` line.
struct FolderRules {
  bool has_readme = false;
  bool ruled = false;
  std::vector<std::string> allowed;  // "core", "profiler/judge/wire", "profiler/device_query.h"
};

std::string trimmed(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// The entries of a README's `May include:` line ("nothing": none); `ruled` is false without one.
FolderRules rules_from_readme(const std::string& text) {
  FolderRules rules;
  rules.has_readme = true;
  std::istringstream lines(text);
  static const std::string kPrefix = "May include:";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kPrefix, 0) != 0) continue;
    rules.ruled = true;
    std::istringstream entries(line.substr(kPrefix.size()));
    for (std::string entry; std::getline(entries, entry, ',');) {
      entry = trimmed(entry);
      while (!entry.empty() && (entry.back() == '/' || entry.back() == '.')) entry.pop_back();
      if (!entry.empty() && entry != "nothing") rules.allowed.push_back(entry);
    }
  }
  return rules;
}

bool is_code(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".cpp" || ext == ".cu" || ext == ".cuh";
}

// Folders (relative to `root`, generic form) under `top` that hold code, with their rules.
std::map<std::string, FolderRules> code_folders(const fs::path& root, const std::string& top) {
  std::map<std::string, FolderRules> folders;
  std::vector<fs::path> dirs{root / top};
  for (const auto& entry : fs::recursive_directory_iterator(root / top))
    if (entry.is_directory()) dirs.push_back(entry.path());
  for (const fs::path& dir : dirs) {
    bool has_code = false;
    for (const auto& entry : fs::directory_iterator(dir))
      has_code = has_code || (entry.is_regular_file() && is_code(entry.path()));
    if (!has_code) continue;
    FolderRules rules;
    if (std::ifstream readme(dir / "README.md"); readme) {
      std::stringstream text;
      text << readme.rdbuf();
      rules = rules_from_readme(text.str());
    }
    folders[fs::relative(dir, root).generic_string()] = rules;
  }
  return folders;
}

bool allowed_by(const std::string& folder, const FolderRules& rules, const std::string& included) {
  if (fs::path(included).parent_path().generic_string() == folder) return true;
  return std::any_of(rules.allowed.begin(), rules.allowed.end(), [&](const std::string& entry) {
    return included == entry || included.rfind(entry + "/", 0) == 0;
  });
}

// "file:line includes X, which folder/README.md does not allow" for every quoted include of a file
// in a ruled folder that its folder's rules do not allow.
std::vector<std::string> include_violations(const fs::path& root, const std::map<std::string, FolderRules>& folders) {
  static const std::regex include_line(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<std::string> found;
  for (const auto& [folder, rules] : folders) {
    if (!rules.ruled) continue;
    for (const auto& entry : fs::directory_iterator(root / folder)) {
      if (!entry.is_regular_file() || !is_code(entry.path())) continue;
      std::ifstream in(entry.path());
      int number = 0;
      for (std::string line; std::getline(in, line);) {
        ++number;
        std::smatch m;
        if (!std::regex_search(line, m, include_line) || allowed_by(folder, rules, m[1].str())) continue;
        found.push_back(folder + "/" + entry.path().filename().string() + ":" + std::to_string(number) + " includes " +
                        m[1].str() + ", which " + folder + "/README.md does not allow");
      }
    }
  }
  return found;
}

// A loop in the folders' rules (each folder to the ruled folders its entries name), as
// "a -> b -> a", or "" when they form a ladder.
std::string rule_loop(const std::map<std::string, FolderRules>& folders) {
  std::map<std::string, std::vector<std::string>> arrows;
  for (const auto& [folder, rules] : folders)
    for (const std::string& entry : rules.allowed)
      for (const auto& [other, unused] : folders) {
        // A file entry ("profiler/device_query.h") points at its own folder; a folder entry at
        // that folder and every folder under it.
        const bool named = fs::path(entry).has_extension() ? fs::path(entry).parent_path().generic_string() == other
                                                           : other == entry || other.rfind(entry + "/", 0) == 0;
        if (other != folder && named) arrows[folder].push_back(other);
      }
  std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::string> path;
  std::string loop;
  std::function<bool(const std::string&)> visit = [&](const std::string& f) {
    state[f] = 1;
    path.push_back(f);
    for (const std::string& next : arrows[f]) {
      if (state[next] == 1) {
        auto from = std::find(path.begin(), path.end(), next);
        for (auto it = from; it != path.end(); ++it) loop += *it + " -> ";
        loop += next;
        return true;
      }
      if (state[next] == 0 && visit(next)) return true;
    }
    path.pop_back();
    state[f] = 2;
    return false;
  };
  for (const auto& [folder, unused] : folders)
    if (state[folder] == 0 && visit(folder)) return loop;
  return "";
}

// A scratch tree for the checks' own tests, removed at the end of the scope.
struct ScratchTree {
  fs::path root = fs::temp_directory_path() /
                  ("kb_include_rules_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  ScratchTree() { fs::create_directories(root); }
  ~ScratchTree() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
};

}  // namespace include_rules

using namespace include_rules;

TEST(IncludeRules, ReadsTheMayIncludeLine) {
  const FolderRules rules = rules_from_readme(
      "# x\n\nMay include `core/` in prose.\n\nMay include: core, profiler/judge/wire/, a/b.h\n");
  ASSERT_TRUE(rules.ruled);
  EXPECT_EQ(rules.allowed, (std::vector<std::string>{"core", "profiler/judge/wire", "a/b.h"}));
  EXPECT_TRUE(rules_from_readme("May include: nothing\n").allowed.empty());
  EXPECT_TRUE(rules_from_readme("May include: nothing\n").ruled);
  EXPECT_FALSE(rules_from_readme("May include `core/` only.\n").ruled);
}

TEST(IncludeRules, TheCheckNamesTheFileAndLineOfAnIncludeOutsideTheRules) {
  ScratchTree tree;
  tree.write("p/low/README.md", "May include: core\n");
  tree.write("p/low/a.h", "#pragma once\n#include \"core/x.h\"\n#include \"p/low/b.h\"\n");
  tree.write("p/high/README.md", "May include: core, p/low\n");
  tree.write("p/high/c.cpp", "#include \"p/high/c.h\"\n#include \"p/low/a.h\"\n");
  tree.write("p/low/b.h", "// a comment: #include \"p/high/c.h\" is no include\n  #  include \"p/high/c.h\"\n");
  const auto violations = include_violations(tree.root, code_folders(tree.root, "p"));
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0], "p/low/b.h:2 includes p/high/c.h, which p/low/README.md does not allow");
}

TEST(IncludeRules, TheCheckFindsAFolderWithCodeAndNoRules) {
  ScratchTree tree;
  tree.write("p/ruled/README.md", "May include: core\n");
  tree.write("p/ruled/a.h", "#pragma once\n");
  tree.write("p/bare/b.cpp", "int b;\n");
  tree.write("p/prose/README.md", "May include `core/` only.\n");
  tree.write("p/prose/c.cu", "int c;\n");
  tree.write("p/docs_only/README.md", "text\n");
  const auto folders = code_folders(tree.root, "p");
  ASSERT_EQ(folders.size(), 3u);
  EXPECT_TRUE(folders.at("p/ruled").ruled);
  EXPECT_FALSE(folders.at("p/bare").has_readme);
  EXPECT_TRUE(folders.at("p/prose").has_readme);
  EXPECT_FALSE(folders.at("p/prose").ruled);
}

TEST(IncludeRules, TheCheckFindsALoopInTheRules) {
  std::map<std::string, FolderRules> folders;
  folders["p/a"] = FolderRules{true, true, {"core", "p/b"}};
  folders["p/b"] = FolderRules{true, true, {"p/c/x.h"}};
  folders["p/c"] = FolderRules{true, true, {"common"}};
  EXPECT_EQ(rule_loop(folders), "");
  folders["p/c"].allowed.push_back("p/a");
  EXPECT_EQ(rule_loop(folders), "p/a -> p/b -> p/c -> p/a");
}

// The trees whose folders state their include rules; a tree joins when every folder of it has a
// README with its `May include:` line.
const std::vector<std::string> kRuledTrees = {"core", "common", "config", "profiler", "bot", "cuda_source", "search"};
// The trees none of whose folders may hold over 40 files flat.
const std::vector<std::string> kRoomedTrees = {"core", "common", "config", "profiler", "bot", "cuda_source", "search"};

TEST(IncludeRules, ProfilerHasItsRooms) {
  EXPECT_GE(code_folders(KB_SOURCE_DIR, "profiler").size(), 15u);  // profiler/, its four folders, the judge's rooms
}

TEST(IncludeRules, EveryFolderOfARuledTreeWithCodeStatesItsRules) {
  for (const std::string& tree : kRuledTrees)
    for (const auto& [folder, rules] : code_folders(KB_SOURCE_DIR, tree)) {
      EXPECT_TRUE(rules.has_readme) << folder << "/ holds code and has no README.md";
      EXPECT_TRUE(!rules.has_readme || rules.ruled) << folder << "/README.md has no `May include:` line";
    }
}

TEST(IncludeRules, EveryIncludeOfARuledTreeFollowsItsFoldersRules) {
  for (const std::string& tree : kRuledTrees)
    for (const std::string& violation : include_violations(KB_SOURCE_DIR, code_folders(KB_SOURCE_DIR, tree)))
      ADD_FAILURE() << violation;
}

TEST(IncludeRules, TheFoldersRulesFormALadder) {
  std::map<std::string, FolderRules> all;
  for (const std::string& tree : kRuledTrees) all.merge(code_folders(KB_SOURCE_DIR, tree));
  EXPECT_EQ(rule_loop(all), "");
}

TEST(IncludeRules, NoFolderOfARoomedTreeIsOverFortyFiles) {
  const auto files_in = [](const fs::path& dir) {
    return std::count_if(fs::directory_iterator(dir), fs::directory_iterator(),
                         [](const fs::directory_entry& e) { return e.is_regular_file(); });
  };
  for (const std::string& tree : kRoomedTrees) {
    const fs::path top = fs::path(KB_SOURCE_DIR) / tree;
    EXPECT_LE(files_in(top), 40) << top.string() << ": split it into rooms";
    for (const auto& entry : fs::recursive_directory_iterator(top))
      if (entry.is_directory())
        EXPECT_LE(files_in(entry.path()), 40) << entry.path().string() << ": split it into rooms";
  }
}
