#include "bot/pr_comments/pr_commands.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <sstream>
#include <utility>

#include "common/text.h"

namespace kb::bot {
namespace {

constexpr std::array<std::pair<const char*, PrCommandKind>, 6> kCommands{{
    {"rebench", PrCommandKind::rebench},
    {"rebase", PrCommandKind::rebase},
    {"explain", PrCommandKind::explain},
    {"ignore", PrCommandKind::ignore},
    {"unignore", PrCommandKind::unignore},
    {"help", PrCommandKind::help},
}};

std::string trim_left(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

}  // namespace

std::optional<PrCommand> parse_pr_command(const std::string& comment_body) {
  std::istringstream lines(comment_body);
  std::string line;
  bool in_code = false;
  while (std::getline(lines, line)) {
    if (line.ends_with('\r')) line.pop_back();  // GitHub stores what browsers send: CRLF
    const std::string text = trim_left(line);
    // A fenced block shows a command (in docs, in the bot's own help) without giving it.
    if (text.starts_with("```") || text.starts_with("~~~")) {
      in_code = !in_code;
      continue;
    }
    if (in_code || text.starts_with('>')) continue;  // quoted: someone else's command
    static const std::string kMention = "@kernelbot";
    if (lower(text.substr(0, kMention.size())) != kMention) continue;
    std::string rest = text.substr(kMention.size());
    // "@kernelbotx" is another account's mention, not ours.
    if (!rest.empty() && !std::isspace(static_cast<unsigned char>(rest[0])) && rest[0] != ':' && rest[0] != ',')
      continue;
    std::istringstream words(rest);
    std::string word;
    words >> word;
    while (!word.empty() && (word.front() == ':' || word.front() == ',')) word.erase(0, 1);
    if (word.empty()) words >> word;
    while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.back()))) word.pop_back();
    word = lower(word);
    if (word.empty()) return PrCommand{PrCommandKind::help, ""};
    for (const auto& [name, kind] : kCommands)
      if (word == name) return PrCommand{kind, ""};
    return PrCommand{PrCommandKind::help, word};
  }
  return std::nullopt;
}

const char* pr_command_name(PrCommandKind kind) {
  for (const auto& [name, k] : kCommands)
    if (k == kind) return name;
  return "help";
}

std::string pr_command_help(const std::string& unknown) {
  std::string head = unknown.empty() ? "kernelbot answers these commands, one per comment:"
                                     : fmt::format("kernelbot does not know `{}`. It answers these commands, one per "
                                                   "comment:",
                                                   unknown);
  return head +
         "\n\n"
         "| Comment | What kernelbot does |\n"
         "|---|---|\n"
         "| `@kernelbot rebench` | re-measures this PR's file against the current base and updates the tables |\n"
         "| `@kernelbot rebase` | rebases the branch onto the base, re-verifies, re-measures and pushes (not when "
         "someone else has pushed to the branch) |\n"
         "| `@kernelbot explain` | shows the ideas the search tried and the evidence behind this change |\n"
         "| `@kernelbot ignore` | leaves this kernel alone until its source changes |\n"
         "| `@kernelbot unignore` | searches this kernel again |\n"
         "| `@kernelbot help` | this table |\n"
         "\n"
         "Commands are read at the start of kernelbot's next run and answered once; only people with write "
         "access to the repository can give them.";
}

bool may_command(const std::string& permission, const std::string& role_name) {
  for (const auto& p : {permission, role_name})
    if (p == "admin" || p == "maintain" || p == "write") return true;
  return false;
}

}  // namespace kb::bot
