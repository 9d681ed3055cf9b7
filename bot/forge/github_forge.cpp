#include "bot/forge/github_forge.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "bot/forge/branch_commit.h"
#include "bot/forge/github_body_limit.h"
#include "bot/pr/pr_body.h"
#include "bot/pr/pr_lifecycle.h"
#include "core/errors.h"
#include "core/number_format.h"

namespace kb::bot {
namespace {

constexpr const char* kBranchPrefix = "kernelbot/";

// "https://api.github.com" -> "https://github.com"; "https://ghe.example.com/api/v3" -> "https://ghe.example.com".
std::string web_url(const std::string& api_url) {
  std::string url = api_url;
  auto api = url.find("://api.");
  if (api != std::string::npos) url.erase(api + 3, 4);
  auto v3 = url.find("/api/v3");
  if (v3 != std::string::npos) url.erase(v3);
  while (url.ends_with('/')) url.pop_back();
  return url;
}

// A closed, unmerged PR of the bot's branch: what it proposed, from the marker its body starts
// with (or, from an older kernelbot, the speedup its title names).
search::DeclinedChange declined_change(const std::string& kernel, const GitHubPull& p) {
  search::DeclinedChange d{kernel, "", speedup_from_title(p.title), p.number, p.html_url, p.closed_at};
  if (auto marker = parse_change_marker(p.body)) {
    d.change_id = marker->change_id;
    d.speedup = marker->speedup;
  }
  return d;
}

}  // namespace

std::string push_target_for(const config::GithubConfig& github, const GitRepo& repo, bool have_token) {
  std::string url = repo.remote_url(github.remote);
  if (url.empty()) url = github.remote;  // not a remote's name: a URL or a path
  // A local path (a mirror, a test's bare repository) is pushed to as it is: no token goes there.
  const bool network = url.find("://") != std::string::npos || url.starts_with("git@") ||
                       (url.find(':') != std::string::npos && url.find(':') < url.find('/'));
  // The token goes only to [github].repository on the API's own host: .git/config is a file of
  // the checkout, which whatever ran in it could have rewritten.
  if (network && have_token) return web_url(github.api_url) + "/" + github.repository + ".git";
  return github.remote;
}

GitHubForge::GitHubForge(config::GithubConfig github, GitRepo repo, std::string push_target, std::string token,
                         std::unique_ptr<GitHubClient> client)
    : github_(std::move(github)),
      repo_(std::move(repo)),
      push_target_(std::move(push_target)),
      token_(std::move(token)),
      client_(std::move(client)) {}

// The lifecycle checks, in order: what people said on the branch's PRs (the ignore label,
// closed-unmerged PRs) and did to it (commits of their own) decide before the bot pushes or
// edits anything. Each returns the outcome to stop with, or nullopt to go on.
std::optional<PullRequestOutcome> GitHubForge::withheld_by_people(const PullRequest& pr,
                                                                  const std::vector<GitHubPull>& branch_pulls,
                                                                  const std::vector<GitHubPull>& open,
                                                                  PullRequestOutcome& outcome,
                                                                  std::optional<search::DeclinedChange>& supersedes) {
  auto stop = [&](const std::string& withheld, const std::string& note, const GitHubPull* pull) {
    PullRequestOutcome o = outcome;
    o.published = false;
    o.withheld = withheld;
    o.note = note;
    if (pull) {
      o.number = pull->number;
      o.url = pull->html_url;
    }
    spdlog::info("{}: {}", pr.head, note);
    return o;
  };
  for (const auto& p : branch_pulls)
    if (std::find(p.labels.begin(), p.labels.end(), kIgnoreLabel) != p.labels.end())
      return stop("ignored",
                  fmt::format("#{} carries the `{}` label: the bot leaves this kernel alone", p.number, kIgnoreLabel),
                  &p);

  const auto moved = files_moved_on_base(repo_, pr);
  if (!moved.empty()) {
    // The change was measured against text the base no longer has: never pushed. The open PR was
    // made from an earlier base too; the caller has it follow the base (follow_base).
    return stop("base moved",
                fmt::format("{} changed on {} since the winner was measured; no PR from this winner", moved.front(),
                            pr.base),
                open.empty() ? nullptr : &open.front());
  }

  std::vector<search::DeclinedChange> declined = pr.declined;
  for (const auto& d : outcome.declined) {
    auto known = std::find_if(declined.begin(), declined.end(), [&](const auto& x) { return x.number == d.number; });
    if (known == declined.end()) declined.push_back(d);
    else *known = d;  // GitHub's word is the newer
  }
  // A PR the archive remembers as closed but GitHub shows open again (reopened) or merged
  // declines nothing any more.
  std::erase_if(declined, [&](const search::DeclinedChange& d) {
    return std::any_of(branch_pulls.begin(), branch_pulls.end(),
                       [&](const GitHubPull& p) { return p.number == d.number && (p.state == "open" || p.merged); });
  });
  DeclineCheck check = check_declined(declined, pr.change_id, pr.speedup, github_.reopen_margin);
  if (check.withhold) return stop("declined before", check.note, open.empty() ? nullptr : &open.front());
  supersedes = check.supersedes;

  if (!open.empty()) {
    std::vector<BranchCommit> commits;
    for (const auto& c : client_->pull_commits(open.front().number))
      commits.push_back({c.sha, c.author_name, c.author_email, c.committer_email});
    auto others = commits_by_others(commits, pr.author_email);
    if (!others.empty()) {
      // A nightly run finds the same winner every night: the same note once is enough.
      const std::string note = fit_github_body(person_commits_comment(others, pr.head, pr.title, pr.commit_message));
      const auto said = client_->comments(open.front().number);
      const bool repeat = std::find(said.begin(), said.end(), note) != said.end();
      if (!repeat) client_->comment(open.front().number, note);
      return stop("left to a person",
                  fmt::format("#{} has {} commit{} kernelbot did not make; {} instead of pushing", open.front().number,
                              others.size(), others.size() == 1 ? "" : "s",
                              repeat ? "the same new numbers were commented before" : "commented with the new numbers"),
                  &open.front());
    }
  }
  return std::nullopt;
}

bool GitHubForge::comment_once(int64_t number, const std::string& body) {
  const std::string text = fit_github_body(body);
  const auto said = client_->comments(number);
  if (std::find(said.begin(), said.end(), text) != said.end()) return false;
  if (!dry_run_file_.empty()) write_would(fmt::format("Would comment on #{}", number), text);
  else client_->comment(number, text);
  return true;
}

void GitHubForge::write_would(const std::string& what, const std::string& text) {
  std::filesystem::create_directories(dry_run_file_.parent_path());
  std::ofstream file(dry_run_file_, std::ios::app);
  file << "## " << what << "\n\n" << text << "\n\n";
  if (!file) throw kb::Error("cannot write " + dry_run_file_.string());
}

std::optional<PullRequestOutcome> GitHubForge::follow_base(const FollowBase& request) {
  std::optional<PullRequestOutcome> out;
  for (const auto& p : client_->open_pulls(request.head)) {
    auto one = follow_base_of(p, request);
    if (!one) continue;
    spdlog::info("{}: {}", request.head, one->note);
    if (!out) out = std::move(one);
    else out->note += "; " + one->note;
  }
  return out;
}

// One open PR of the branch: replayed onto the base, re-measured, then pushed and updated, or
// closed with the reason, or left with a note (a person's commits, no GPU here).
std::optional<PullRequestOutcome> GitHubForge::follow_base_of(const GitHubPull& pull, const FollowBase& request) {
  const auto measured = parse_measured_on(pull.body);
  std::map<std::string, std::optional<std::string>> at_base;
  for (const auto& [path, hash] : measured) at_base[path] = repo_.file_at(request.base, path);
  const auto moved = files_changed_since_measured(measured, at_base);
  if (moved.empty() && !request.always) return std::nullopt;

  PullRequestOutcome o;
  o.published = false;
  o.number = pull.number;
  o.url = pull.html_url;
  const std::string what = moved.empty() ? fmt::format("#{}", pull.number)
                                         : fmt::format("{} changed on {} since #{} was measured", moved.front(),
                                                       request.base, pull.number);

  const bool dry = !dry_run_file_.empty();
  auto close = [&](const std::string& comment) {
    if (dry) write_would(fmt::format("Would close #{} with this comment", pull.number), comment);
    else client_->close_pull(pull.number, comment);
  };
  std::vector<BranchCommit> commits;
  for (const auto& c : client_->pull_commits(pull.number))
    commits.push_back({c.sha, c.author_name, c.author_email, c.committer_email});
  const auto others = commits_by_others(commits, github_.author_email);
  if (!others.empty()) {
    if (!moved.empty()) comment_once(pull.number, rebase_left_to_person_comment(moved, request.base, others));
    o.withheld = "left to a person";
    o.note = fmt::format("{}; not rebased: the branch carries {} commit{} kernelbot did not make", what, others.size(),
                         others.size() == 1 ? "" : "s");
    return o;
  }

  const std::string head = repo_.fetch_branch(push_target_, request.head, token_);
  if (head.empty())
    throw kb::Error(
        fmt::format("#{}: its branch {} is not on the remote; nothing to rebase", pull.number, request.head));
  ReplayedChange replayed = repo_.replay_onto(head, request.base);
  if (!replayed.conflicts.empty()) {
    close(rebase_conflict_comment(moved.empty() ? replayed.conflicts : moved, replayed.conflicts, request.base));
    o.withheld = "base moved";
    o.conflicts = replayed.conflicts;
    o.note = fmt::format("{}; replaying #{} onto {} conflicts in {}; {} #{} with a note", what, pull.number,
                         request.base, replayed.conflicts.front(), dry ? "would close" : "closed", pull.number);
    return o;
  }
  if (replayed.files.size() != 1)
    throw kb::Error(fmt::format("#{} changes {} files; kernelbot re-measures a change of one file", pull.number,
                                replayed.files.size()));
  const auto& [path, text] = *replayed.files.begin();
  const std::string base_text = replayed.at_base[path].value_or("");
  if (!request.remeasure) {
    if (!moved.empty()) comment_once(pull.number, rebase_waits_for_gpu_comment(moved, request.base));
    o.withheld = "base moved";
    o.note = fmt::format("{}; the change still applies, left open for a run with a GPU to re-measure", what);
    return o;
  }
  search::Reverification record = request.remeasure({path, base_text, text});
  o.remeasured = record;
  if (!record.passed && record.eval.verdict == Verdict::infra_error)
    // The GPU failed, not the change: the PR stays as it is for the next run.
    throw kb::Error("the rebased change could not be re-measured: " + record.eval.reason);
  if (!record.passed) {
    close(rebase_win_gone_comment(moved.empty() ? std::vector<std::string>{path} : moved, request.base,
                                  replayed.base_commit, record));
    o.withheld = "base moved";
    o.note = fmt::format("{}; rebased and re-measured: {} ({}); {} #{} with the new numbers", what,
                         format_speedup(record.eval.speedup), record.failure, dry ? "would close" : "closed",
                         pull.number);
    return o;
  }

  const std::string kernel = request.head.substr(request.head.rfind('/') + 1);
  const std::string gpu = record.eval.device.name.empty() ? "the GPU" : record.eval.device.name;
  std::string message = fmt::format("{}: {} faster, rebased onto {} (verified on {})\n\n", kernel,
                                    format_speedup(record.eval.speedup), request.base, gpu);
  for (const auto& t : record.eval.timings)
    message += fmt::format("{}: {} us -> {} us ({})\n", t.size_label, format_us(t.baseline.median_us),
                           format_us(t.candidate.median_us), format_speedup(t.speedup));
  o.commit = repo_.commit_on_branch(request.base, request.head, replayed.files, message, github_.author_name,
                                    github_.author_email);
  const std::string title = fmt::format("kernelbot: {} {} faster", kernel, format_speedup(record.eval.speedup));
  const std::string body = change_marker(change_id_of({{path, text}}), record.eval.speedup) + "\n" +
                           measured_on_marker(path, base_text) + "\n" +
                           rebased_pr_body(without_markers(pull.body), record, kernel, request.base,
                                           replayed.base_commit);
  if (dry) {
    write_would(fmt::format("Would force-push {} ({}, on {} {}) and update #{} to", request.head,
                            o.commit.substr(0, 12), request.base, replayed.base_commit.substr(0, 12), pull.number),
                "# " + title + "\n\n" + body);
  } else {
    repo_.push(push_target_, request.head, token_);  // forced: only the bot's own commits are there (checked above)
    client_->update_pull(pull.number, title, body);
  }
  o.published = true;
  o.note = fmt::format("{}; {} #{} onto {} ({}) and re-measured: {}{}", what, dry ? "would rebase" : "rebased",
                       pull.number, request.base, replayed.base_commit.substr(0, 12),
                       format_speedup(record.eval.speedup),
                       dry ? " (dry run: what it would post is in " + dry_run_file_.string() + ")" : "");
  return o;
}

PullRequestOutcome GitHubForge::open_or_update(const PullRequest& pr) {
  PullRequestOutcome outcome;
  const auto branch_pulls = client_->all_pulls(pr.head);
  std::vector<GitHubPull> existing;
  for (const auto& p : branch_pulls) {
    if (p.state == "open") existing.push_back(p);
    else if (!p.merged) outcome.declined.push_back(declined_change(pr.kernel, p));
  }
  std::sort(existing.begin(), existing.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  std::optional<search::DeclinedChange> supersedes;
  if (auto stop = withheld_by_people(pr, branch_pulls, existing, outcome, supersedes)) return *stop;
  if (existing.empty()) {
    // The cap counts the bot's open PRs for other kernels; updating our own never needs a slot.
    auto open = client_->open_pulls();
    auto bots = std::count_if(open.begin(), open.end(),
                              [](const GitHubPull& p) { return p.head_ref.starts_with(kBranchPrefix); });
    if (bots >= github_.max_open_prs) {
      outcome.published = false;
      outcome.note = fmt::format("not opened: {} kernelbot PRs are open, [github].max_open_prs is {}; the winner is "
                                 "saved, publish it later with `kernelbot pr`",
                                 bots, github_.max_open_prs);
      spdlog::warn("{}", outcome.note);
      return outcome;
    }
  }

  outcome.commit = commit_pull_request(repo_, pr);
  spdlog::info("committed {} on {}; pushing", outcome.commit.substr(0, 12), pr.head);
  repo_.push(push_target_, pr.head, token_);  // forced: only the bot's own commits are there (checked above)

  // The marker first: a long body is cut at its end, and a closed PR must still say what it declined.
  std::string body = (pr.change_id.empty() ? "" : change_marker(pr.change_id, pr.speedup) + "\n") +
                     measured_on_lines(repo_, pr) + pr.body;
  if (supersedes) body += "\n" + supersedes_text(*supersedes, pr.speedup) + "\n";
  GitHubPull pull;
  if (!existing.empty()) {
    pull = client_->update_pull(existing.front().number, pr.title, body);
    outcome.created = false;
  } else {
    auto created = client_->create_pull(pr.title, body, pr.head, pr.base, pr.draft);
    pull = created.pull;
    outcome.created = created.created;
  }
  client_->add_labels(pull.number, pr.labels);
  // Two open PRs for one branch (a race between two runs): keep the oldest, close the others.
  for (size_t i = 1; i < existing.size(); ++i) {
    client_->close_pull(existing[i].number,
                        fmt::format("Superseded by #{}, which carries the latest verified winner for this branch.",
                                    pull.number));
    outcome.note += fmt::format("{}closed #{} as a duplicate of #{}", outcome.note.empty() ? "" : "; ",
                                existing[i].number, pull.number);
  }
  outcome.number = pull.number;
  outcome.url = pull.html_url;
  spdlog::info("{} pull request #{}: {}", outcome.created ? "opened" : "updated", pull.number, pull.html_url);
  return outcome;
}

}  // namespace kb::bot
