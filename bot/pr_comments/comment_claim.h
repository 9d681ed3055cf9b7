// Who answers a command comment: the run that claims it. A claim is the bot's 👀 reaction on the
// comment; GitHub keeps one reaction per account and emoji and answers 201 only to the request
// that made it, so of two runs at once exactly one claims a comment.
//
// A claim is a lease, not a lock held forever: a run can die between its reaction and its reply
// (a runner lost, a job cancelled), and the comment would then wait for an answer forever. A
// claim older than kClaimLeaseSeconds (by the reaction's created_at as GitHub reports it, against
// this machine's UTC clock) with no reply yet is taken over: the run deletes that reaction by its
// id and reacts again, and again only the run whose reaction GitHub creates (201) answers. A run
// that deletes a reaction another run has already replaced deletes nothing of the newer claim
// (the id is the stale one's), so a stale claim, too, is answered once.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>

#include "bot/forge/github_client.h"

namespace kb::bot {

// How long a run may take from claiming a comment to replying to it: a command measures one
// kernel's PR text at most, which takes minutes.
inline constexpr int64_t kClaimLeaseSeconds = 30 * 60;

enum class CommentClaim {
  claimed,        // this run's reaction is the claim
  taken_over,     // a claim older than the lease was replaced by this run's
  held_elsewhere  // another run's claim, within its lease (or it took over a stale one first)
};

// Claims comment `comment_id` with `content` ("eyes") for this run, at `now`.
CommentClaim claim_comment(GitHubClient& client, int64_t comment_id, const std::string& content, std::time_t now);

// "2026-11-29T09:30:00Z" (GitHub's timestamps) as seconds since the epoch; nullopt when it is not
// such a time.
std::optional<std::time_t> parse_github_time(const std::string& iso8601);

}  // namespace kb::bot
