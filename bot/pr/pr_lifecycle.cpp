#include "bot/pr/pr_lifecycle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "bot/pr/explain_text.h"
#include "common/sha256.h"
#include "common/text.h"
#include "core/number_format.h"

namespace kb::bot {
namespace {

std::string code_list(const std::vector<std::string>& files) {
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "`" : ", `") + f + "`";
  return list;
}

std::string pr_ref(const search::DeclinedChange& d) {
  return d.url.empty() ? fmt::format("#{}", d.number) : fmt::format("#{} ({})", d.number, d.url);
}

// `commits` as a markdown list, a line each ("- 1a2b3c4d5e6f by Ada <ada@example.com>"): how the
// comments that leave a person's branch alone name the commits they pushed.
std::string commit_lines(const std::vector<BranchCommit>& commits) {
  std::string lines;
  for (const auto& c : commits)
    lines += fmt::format("- {} by {} <{}>\n", c.sha.substr(0, 12), c.author_name, c.author_email);
  return lines;
}

}  // namespace

std::string change_id_of(const std::map<std::string, std::string>& files) {
  // Each text with its length, so that no two different sets of files hash the same bytes.
  std::string all;
  for (const auto& [path, text] : files) all += std::to_string(text.size()) + ":" + text;
  return "sha256:" + sha256_hex(all);
}

std::string change_marker(const std::string& change_id, double speedup) {
  return fmt::format("<!-- kernelbot-change: {} {:.4f}x -->", change_id, speedup);
}

std::string measured_on_marker(const std::string& path, const std::string& text) {
  return fmt::format("<!-- kernelbot-measured-on: {} sha256:{} -->", path, sha256_hex(text));
}

std::map<std::string, std::string> parse_measured_on(const std::string& body) {
  static const std::regex marker(R"(<!-- kernelbot-measured-on: (\S+) (sha256:[0-9a-f]{64}) -->)");
  std::map<std::string, std::string> out;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), marker); it != std::sregex_iterator(); ++it)
    out[(*it)[1].str()] = (*it)[2].str();
  return out;
}

std::vector<std::string> files_changed_since_measured(const std::map<std::string, std::string>& measured_on,
                                                      const std::map<std::string, std::optional<std::string>>& at_base) {
  std::vector<std::string> changed;
  for (const auto& [path, hash] : measured_on) {
    auto text = at_base.find(path);
    if (text == at_base.end()) continue;  // not asked about: nothing known
    if (!text->second || "sha256:" + sha256_hex(*text->second) != hash) changed.push_back(path);
  }
  return changed;
}

std::optional<ChangeMarker> parse_change_marker(const std::string& body) {
  static const std::regex marker(R"(<!-- kernelbot-change: (sha256:[0-9a-f]{64}) ([0-9]+(\.[0-9]+)?)x -->)");
  std::smatch m;
  if (!std::regex_search(body, m, marker)) return std::nullopt;
  return ChangeMarker{m[1].str(), std::stod(m[2].str())};
}

double speedup_from_title(const std::string& title) {
  static const std::regex speedup(R"(([0-9]+(\.[0-9]+)?)x faster)");
  std::smatch m;
  return std::regex_search(title, m, speedup) ? std::stod(m[1].str()) : 0;
}

DeclineCheck check_declined(const std::vector<search::DeclinedChange>& declined, const std::string& change_id,
                            double speedup, double margin) {
  DeclineCheck check;
  if (declined.empty()) return check;
  for (const auto& d : declined)
    if (!change_id.empty() && d.change_id == change_id) {
      check.withhold = true;
      check.note = fmt::format("the same change was proposed in {} and closed without merging; kernelbot does not "
                               "propose it again",
                               pr_ref(d));
      return check;
    }
  const auto fastest = std::max_element(declined.begin(), declined.end(),
                                        [](const auto& a, const auto& b) { return a.speedup < b.speedup; });
  const bool unknown = std::any_of(declined.begin(), declined.end(), [](const auto& d) { return d.speedup <= 0; });
  if (unknown) {
    const auto& d = *std::find_if(declined.begin(), declined.end(), [](const auto& x) { return x.speedup <= 0; });
    check.withhold = true;
    check.note = fmt::format("{} was closed without merging and names no speedup to compare a new winner with; "
                             "kernelbot leaves the kernel alone (reopen that PR to have it updated)",
                             pr_ref(d));
    return check;
  }
  const double needed = fastest->speedup * margin;
  if (speedup < needed) {
    check.withhold = true;
    check.note = fmt::format("{} ({}) was closed without merging; a new PR needs at least {} ([github].reopen_margin "
                             "{:.2f}), this winner is {}",
                             pr_ref(*fastest), format_speedup(fastest->speedup), format_speedup(needed), margin,
                             format_speedup(speedup));
    return check;
  }
  check.supersedes = *std::max_element(declined.begin(), declined.end(),
                                       [](const auto& a, const auto& b) { return a.number < b.number; });
  return check;
}

std::string supersedes_text(const search::DeclinedChange& closed, double speedup) {
  return fmt::format("Follows #{}, which was closed without merging ({}); this winner is {}, beyond the margin the "
                     "bot waits for before proposing the kernel again.",
                     closed.number, closed.speedup > 0 ? format_speedup(closed.speedup) : "speedup unknown",
                     format_speedup(speedup));
}

std::vector<BranchCommit> commits_by_others(const std::vector<BranchCommit>& commits, const std::string& bot_email) {
  std::vector<BranchCommit> others;
  for (const auto& c : commits)
    if (lower(c.author_email) != lower(bot_email) || lower(c.committer_email) != lower(bot_email)) others.push_back(c);
  return others;
}

std::string person_commits_comment(const std::vector<BranchCommit>& others, const std::string& branch,
                                   const std::string& title, const std::string& numbers) {
  const std::string who = commit_lines(others);
  return fmt::format("kernelbot has a new winner for this kernel but left `{}` alone: it carries commits that "
                     "kernelbot did not make, and it never force-pushes over a person's work.\n\n{}\nThe new "
                     "winner: **{}**\n\n```\n{}```\n\nTo let kernelbot update this PR again, drop those commits "
                     "from the branch (or merge or close the PR).",
                     branch, who, title, numbers);
}

std::string base_moved_comment(const std::vector<std::string>& files, const std::string& base) {
  const std::string list = code_list(files);
  return fmt::format("Closing: {} changed on `{}` since this change was measured, so the numbers above no longer "
                     "describe what merging it would do. kernelbot searches the new code on its next run and "
                     "proposes again only what it verifies there.",
                     list, base);
}

std::string without_markers(const std::string& body) {
  std::string out = body;
  for (;;) {
    const bool marker = out.starts_with("<!-- kernelbot-change: ") || out.starts_with("<!-- kernelbot-measured-on: ");
    const size_t end = out.find('\n');
    if (!marker || end == std::string::npos) return out;
    out.erase(0, end + 1);
  }
}

std::string rebase_conflict_comment(const std::vector<std::string>& moved, const std::vector<std::string>& conflicts,
                                    const std::string& base) {
  return fmt::format("Closing: {} changed on `{}` since this change was measured, and the change no longer applies "
                     "to the new code: replaying it onto `{}` conflicts in {}. kernelbot searches the new code on its "
                     "next run and proposes again only what it verifies there.",
                     code_list(moved), base, base, code_list(conflicts));
}

std::string rebase_win_gone_comment(const std::vector<std::string>& moved, const std::string& base,
                                    const std::string& base_commit, const search::Reverification& record) {
  const std::string gpu = record.eval.device.name.empty() ? "the GPU" : record.eval.device.name;
  return fmt::format("Closing: {} changed on `{}` since this change was measured. kernelbot replayed the change onto "
                     "`{}` ({}) and re-measured it there on {}: {}, so the win is gone: {}.\n\n{}\nkernelbot "
                     "searches the new code on its next run and proposes again only what it verifies there.",
                     code_list(moved), base, base, base_commit.substr(0, 12), gpu, format_speedup(record.eval.speedup),
                     record.failure, reverification_table(record));
}

std::string rebase_waits_for_gpu_comment(const std::vector<std::string>& moved, const std::string& base) {
  return fmt::format("{} changed on `{}` since this change was measured. The change still applies to the new code, "
                     "but this job has no GPU to re-measure it: the numbers above describe the old base until a "
                     "`kernelbot run` on a GPU rebases and re-measures it (or a maintainer comments "
                     "`@kernelbot rebase`).",
                     code_list(moved), base);
}

std::string rebase_left_to_person_comment(const std::vector<std::string>& moved, const std::string& base,
                                          const std::vector<BranchCommit>& others) {
  const std::string who = commit_lines(others);
  return fmt::format("{} changed on `{}` since this change was measured, so the numbers above describe the old base. "
                     "kernelbot did not rebase this branch: it carries commits kernelbot did not make, and it never "
                     "force-pushes over a person's work.\n\n{}\nRebase it onto `{}` yourself, or drop those commits "
                     "and comment `@kernelbot rebase`.",
                     code_list(moved), base, who, base);
}

}  // namespace kb::bot
