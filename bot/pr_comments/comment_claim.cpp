#include "bot/pr_comments/comment_claim.h"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace kb::bot {

std::optional<std::time_t> parse_github_time(const std::string& iso8601) {
  std::tm tm{};
  char zone = 0;
  int consumed = 0;
  if (std::sscanf(iso8601.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &zone, &consumed) != 7 ||
      zone != 'Z' || static_cast<size_t>(consumed) != iso8601.size())
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return timegm(&tm);
}

CommentClaim claim_comment(GitHubClient& client, int64_t comment_id, const std::string& content, std::time_t now) {
  const GitHubReaction first = client.react_to_comment(comment_id, content);
  if (first.created) return CommentClaim::claimed;
  const auto since = parse_github_time(first.created_at);
  // A claim whose age cannot be read is respected: answering twice is worse than answering late.
  if (!since || now - *since < kClaimLeaseSeconds) return CommentClaim::held_elsewhere;
  spdlog::warn("comment {} was claimed at {} and never answered (the run that claimed it is gone); taking it over",
               comment_id, first.created_at);
  client.delete_comment_reaction(comment_id, first.id);
  // Whoever's reaction GitHub creates now holds the claim; a run that lost this race gets 200.
  return client.react_to_comment(comment_id, content).created ? CommentClaim::taken_over : CommentClaim::held_elsewhere;
}

}  // namespace kb::bot
