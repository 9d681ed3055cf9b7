#include "bot/pr_comments/pr_conversation.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <ctime>
#include <fstream>
#include <regex>
#include <set>

#include "bot/forge/github_body_limit.h"
#include "bot/pr_comments/comment_claim.h"

namespace kb::bot {
namespace {

constexpr const char* kBranchPrefix = "kernelbot/";
constexpr const char* kClaimReaction = "eyes";

std::set<int64_t> answered_ids(const std::vector<GitHubComment>& comments) {
  static const std::regex marker(R"(<!-- kernelbot-answered: ([0-9]+) -->)");
  std::set<int64_t> ids;
  for (const auto& c : comments)
    for (auto it = std::sregex_iterator(c.body.begin(), c.body.end(), marker); it != std::sregex_iterator(); ++it)
      ids.insert(std::stoll((*it)[1].str()));
  return ids;
}

std::string reply_text(const GitHubComment& asked, const PrCommand& command, const std::string& text) {
  return fmt::format("@{} `{}`: {}\n\n{}\n", asked.user_login, pr_command_name(command.kind), text,
                     answered_marker(asked.id));
}

std::string act(PrCommandActions& actions, const PrCommand& command, const std::string& kernel, const GitHubPull& pull,
                const GitHubComment& asked) {
  switch (command.kind) {
    case PrCommandKind::rebench: return actions.rebench(kernel, pull);
    case PrCommandKind::rebase: return actions.rebase(kernel, pull);
    case PrCommandKind::explain: return actions.explain(kernel);
    case PrCommandKind::ignore: return actions.ignore(kernel, asked);
    case PrCommandKind::unignore: return actions.unignore(kernel, asked);
    case PrCommandKind::help: break;
  }
  return pr_command_help(command.unknown);
}

}  // namespace

std::string answered_marker(int64_t comment_id) { return fmt::format("<!-- kernelbot-answered: {} -->", comment_id); }

std::vector<AnsweredComment> answer_pr_commands(GitHubClient& client, PrCommandActions& actions,
                                                const ConversationOptions& options) {
  const bool dry = !options.dry_run_file.empty();
  std::vector<AnsweredComment> out;
  for (const auto& pull : client.open_pulls()) {
    if (!pull.head_ref.starts_with(kBranchPrefix)) continue;
    const std::string kernel = pull.head_ref.substr(std::string(kBranchPrefix).size());
    const auto comments = client.issue_comments(pull.number);
    const auto answered = answered_ids(comments);
    for (const auto& c : comments) {
      // An app's account (the bot itself under GITHUB_TOKEN) gives no commands, and the bot's own
      // replies carry the marker: neither is a person asking.
      if (c.user_type == "Bot" || c.body.find("<!-- kernelbot-answered:") != std::string::npos) continue;
      const auto command = parse_pr_command(c.body);
      if (!command || answered.count(c.id)) continue;
      const bool measuring = command->kind == PrCommandKind::rebench || command->kind == PrCommandKind::rebase;
      if (measuring && !options.measures) continue;
      AnsweredComment row{pull.number, c.id, c.user_login, pr_command_name(command->kind), "", "", false};
      if (!dry) {
        const CommentClaim claim = claim_comment(client, c.id, kClaimReaction, std::time(nullptr));
        if (claim == CommentClaim::held_elsewhere) {
          row.outcome = "taken by another run";
          spdlog::info("#{}: comment {} by {} ({}) is being answered by another run", pull.number, c.id, c.user_login,
                       row.command);
          out.push_back(row);
          continue;
        }
        row.took_over = claim == CommentClaim::taken_over;
      }
      const auto access = client.collaborator_permission(c.user_login);
      std::string text;
      if (!may_command(access.permission, access.role_name)) {
        row.outcome = "refused";
        text = fmt::format("kernelbot takes commands only from people with write access to the repository; "
                           "GitHub says your access is `{}`. Ask a maintainer to repeat the command.",
                           access.role_name.empty() ? access.permission : access.role_name);
        spdlog::warn("#{}: {} asked for `{}` without write access ({}): refused", pull.number, c.user_login,
                     row.command, access.permission);
      } else {
        try {
          text = act(actions, *command, kernel, pull, c);
          row.outcome = "answered";
        } catch (const std::exception& e) {
          // The comment is claimed: whatever went wrong is its answer, or nobody would hear of it.
          row.outcome = "failed";
          text = fmt::format("kernelbot could not do this: {}", e.what());
          spdlog::error("#{}: `{}` by {}: {}", pull.number, row.command, c.user_login, e.what());
        }
      }
      row.reply = fit_github_body(reply_text(c, *command, text));
      if (dry) {
        std::filesystem::create_directories(options.dry_run_file.parent_path());
        std::ofstream file(options.dry_run_file, std::ios::app);
        file << fmt::format("## Reply on #{} to comment {} by {}\n\n{}\n", pull.number, c.id, c.user_login, row.reply);
      } else {
        client.comment(pull.number, row.reply);
        spdlog::info("#{}: answered `{}` by {}", pull.number, row.command, c.user_login);
      }
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace kb::bot
