// What people can ask kernelbot in a comment on its pull request: one line that starts with
// `@kernelbot <command>`. Pure parsing and texts, so that every spelling is unit-tested; asking
// GitHub who wrote the comment and answering it is bot/pr_comments/pr_conversation.h.
#pragma once

#include <optional>
#include <string>

namespace kb::bot {

enum class PrCommandKind {
  rebench,   // re-measure the PR's file against the current base and update its tables
  rebase,    // rebase onto the base, re-verify, re-measure, push
  explain,   // the path of ideas and the evidence, from the archived result
  ignore,    // leave this kernel alone until its source changes
  unignore,  // undo ignore
  help,      // `@kernelbot help`, or a word that is no command (`unknown` says which)
};

struct PrCommand {
  PrCommandKind kind = PrCommandKind::help;
  std::string unknown;  // the word that was not understood; "" for `help` itself and real commands
};

// The command of a comment: the first line (outside quotes and code blocks) that starts with
// `@kernelbot` (any case), then one word. nullopt when the comment addresses no command to the
// bot, e.g. it only mentions @kernelbot in the middle of a sentence or quotes an earlier command.
std::optional<PrCommand> parse_pr_command(const std::string& comment_body);

// The command's word as a person types it: "rebench".
const char* pr_command_name(PrCommandKind kind);

// The reply to `@kernelbot help` and to a word that is no command.
std::string pr_command_help(const std::string& unknown);

// GitHub's repository permission (GET /collaborators/{user}/permission: "permission" is admin,
// write, read or none; "role_name" also names maintain, triage and custom roles): whether that
// person may command the bot, which pushes and closes on the repository's behalf.
bool may_command(const std::string& permission, const std::string& role_name);

}  // namespace kb::bot
