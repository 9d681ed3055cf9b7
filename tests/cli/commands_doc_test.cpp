// docs/commands.md is the list of every command and flag the README points to: this holds it to
// the CLI's own definitions (bot/cli_app.h). Every flag of every command appears in that command's
// rows of the table (global flags anywhere), and every flag the page names exists.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "bot/cli_app.h"
#include "common/file_io.h"

namespace {

// What the page names that belongs to another program (the judge's own flag).
const std::set<std::string> kOtherProgramsFlags = {"--load-check"};

struct CommandFlags {
  std::string path;                // "config check"
  std::vector<std::string> flags;  // "--jobs", "-j"
};

void collect(const CLI::App& app, const std::string& path, std::vector<CommandFlags>& out) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string name = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    CommandFlags c{name, {}};
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_name() == "--help" || o->get_name() == "-h,--help") continue;
      for (const auto& l : o->get_lnames())
        if (l != "help") c.flags.push_back("--" + l);
      for (const auto& s : o->get_snames())
        if (s != "h") c.flags.push_back("-" + s);
    }
    out.push_back(c);
    collect(*sub, name, out);
  }
}

std::string docs() { return kb::read_text_file(std::string(KB_SOURCE_DIR) + "/docs/commands.md"); }

// The table rows of one top-level command: those whose first cell starts with `name.
std::string rows_of(const std::string& page, const std::string& command) {
  const std::string top = command.substr(0, command.find(' '));
  std::istringstream lines(page);
  std::string line, rows;
  while (std::getline(lines, line))
    if (line.rfind("| `" + top + " ", 0) == 0 || line.rfind("| `" + top + "`", 0) == 0) rows += line + "\n";
  return rows;
}

bool names_flag(const std::string& text, const std::string& flag) {
  const std::regex word("(^|[^A-Za-z0-9-])" + flag + "([^A-Za-z0-9-]|$)");
  return std::regex_search(text, word);
}

struct Cli {
  kb::bot::CliContext ctx;
  CLI::App app{"kernelbot", "kernelbot"};
  Cli() { kb::bot::build_cli(app, ctx); }
};

TEST(CommandsDoc, EveryCommandHasARow) {
  Cli cli;
  const std::string page = docs();
  std::vector<CommandFlags> commands;
  collect(cli.app, "", commands);
  ASSERT_GE(commands.size(), 11u);
  for (const auto& c : commands) {
    EXPECT_FALSE(rows_of(page, c.path).empty()) << "docs/commands.md has no row for `" << c.path << "`";
    if (c.path.find(' ') != std::string::npos) {  // a nested command is named in its parent's rows
      EXPECT_NE(rows_of(page, c.path).find(c.path), std::string::npos) << c.path;
    }
  }
}

TEST(CommandsDoc, EveryFlagOfEveryCommandIsInItsRows) {
  Cli cli;
  const std::string page = docs();
  std::vector<CommandFlags> commands;
  collect(cli.app, "", commands);
  for (const auto& c : commands)
    for (const auto& flag : c.flags)
      EXPECT_TRUE(names_flag(rows_of(page, c.path), flag))
          << "docs/commands.md: the rows of `" << c.path << "` do not name its flag " << flag;
  for (const CLI::Option* o : cli.app.get_options())
    for (const auto& l : o->get_lnames())
      if (l != "help") {
        EXPECT_TRUE(names_flag(page, "--" + l)) << "global flag --" << l;
      }
}

TEST(CommandsDoc, EveryFlagThePageNamesExists) {
  Cli cli;
  const std::string page = docs();
  std::vector<CommandFlags> commands;
  collect(cli.app, "", commands);
  std::set<std::string> global;
  for (const CLI::Option* o : cli.app.get_options())
    for (const auto& l : o->get_lnames()) global.insert("--" + l);
  std::map<std::string, std::set<std::string>> by_top;  // top-level command -> its and its children's flags
  std::set<std::string> any = global;
  for (const auto& c : commands) {
    by_top[c.path.substr(0, c.path.find(' '))].insert(c.flags.begin(), c.flags.end());
    any.insert(c.flags.begin(), c.flags.end());
  }
  const std::regex flag("(?:^|[^A-Za-z0-9-])(--[a-z][a-z0-9-]*)");
  for (std::sregex_iterator it(page.begin(), page.end(), flag), end; it != end; ++it) {
    const std::string name = (*it)[1].str();
    if (kOtherProgramsFlags.count(name)) continue;
    EXPECT_TRUE(any.count(name)) << "docs/commands.md names " << name << ", which no command has";
  }
  // Within a command's rows, a flag is its own (or global).
  for (const auto& [top, flags] : by_top) {
    const std::string rows = rows_of(page, top);
    for (std::sregex_iterator it(rows.begin(), rows.end(), flag), end; it != end; ++it) {
      const std::string name = (*it)[1].str();
      if (kOtherProgramsFlags.count(name) || global.count(name)) continue;
      EXPECT_TRUE(flags.count(name)) << "the rows of `" << top << "` name " << name << ", which it does not have";
    }
  }
}

}  // namespace
