// The conversation on the bot's open pull requests: at the start of a run, every comment that
// gives a command (bot/pr_comments/pr_commands.h) is answered with a comment, once. Who may command is
// GitHub's word (write access or more); a comment from anyone else is answered with a refusal.
//
// Answered once, even by two runs at the same time: before acting on a comment the run claims it
// with an "eyes" reaction as the bot's account (bot/pr_comments/comment_claim.h): GitHub keeps one reaction per
// account and emoji and answers 201 to the first request and 200 to every later one, so exactly
// one run wins each comment; the loser leaves it alone. A claim older than the lease (30 minutes)
// whose run never replied is taken over, once. Every reply also ends with an invisible `kernelbot-answered` marker
// naming the comment, so later runs (and dry runs, which react to nothing) skip it without asking.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "bot/forge/github_client.h"
#include "bot/pr_comments/pr_commands.h"

namespace kb::bot {

// What a command does, one method each; the run implements them with its GPU and archive
// (bot/pr_comments/pr_command_actions.h). Each returns the reply's text (markdown) and throws with a message
// a person can act on when it cannot do what was asked.
class PrCommandActions {
 public:
  virtual ~PrCommandActions() = default;
  virtual std::string rebench(const std::string& kernel, const GitHubPull& pull) = 0;
  virtual std::string rebase(const std::string& kernel, const GitHubPull& pull) = 0;
  virtual std::string explain(const std::string& kernel) = 0;
  virtual std::string ignore(const std::string& kernel, const GitHubComment& asked) = 0;
  virtual std::string unignore(const std::string& kernel, const GitHubComment& asked) = 0;
};

struct ConversationOptions {
  // false (a job without a GPU: `kernelbot publish`): rebench and rebase comments are left
  // unclaimed for the next run that can measure.
  bool measures = true;
  // Dry run: nothing is posted or reacted to; each reply is appended to this file instead.
  std::filesystem::path dry_run_file;
};

// One command comment and what became of it.
struct AnsweredComment {
  int64_t pull = 0;
  int64_t comment_id = 0;
  std::string user;
  std::string command;  // "rebench", "help"...
  // "answered", "refused" (no write access), "failed" (the action threw; the reply says why),
  // "taken by another run" (its reaction was there first); in a dry run, what the reply written
  // to the file says
  std::string outcome;
  std::string reply;
  bool took_over = false;  // a claim older than the lease, whose run never replied, was taken over
};

// Reads the comments of every open PR on a kernelbot/<kernel> branch and answers the commands
// not answered yet, oldest first. GitHub failures (after the client's retries, rate limits
// included) are thrown as GitHubError.
std::vector<AnsweredComment> answer_pr_commands(GitHubClient& client, PrCommandActions& actions,
                                                const ConversationOptions& options = {});

// The invisible line a reply ends with: "<!-- kernelbot-answered: 1234 -->".
std::string answered_marker(int64_t comment_id);

}  // namespace kb::bot
