#include "bot/forge/github_body_limit.h"

#include <fmt/format.h>

#include <vector>

#include "common/text.h"

namespace kb::bot {
namespace {

constexpr size_t kKeepHead = 15;  // rows a folded table keeps from its start
constexpr size_t kKeepTail = 5;   // and from its end (the last rows are often the result)

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return lines;
}

bool table_row(const std::string& line) { return !line.empty() && line[0] == '|'; }

// Each table longer than the rows kept loses its middle rows; a note after it counts them. The
// note is a paragraph of its own: a line right after a table would be read as one more row.
std::vector<std::string> fold_tables(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (size_t i = 0; i < lines.size();) {
    if (!table_row(lines[i])) {
      out.push_back(lines[i++]);
      continue;
    }
    size_t end = i;
    while (end < lines.size() && table_row(lines[end])) ++end;
    const size_t header = 2;  // the header line and the |---| line
    const size_t rows = end - i > header ? end - i - header : 0;
    if (rows <= kKeepHead + kKeepTail) {
      out.insert(out.end(), lines.begin() + static_cast<long>(i), lines.begin() + static_cast<long>(end));
    } else {
      out.insert(out.end(), lines.begin() + static_cast<long>(i),
                 lines.begin() + static_cast<long>(i + header + kKeepHead));
      out.insert(out.end(), lines.begin() + static_cast<long>(end - kKeepTail), lines.begin() + static_cast<long>(end));
      out.push_back("");
      out.push_back(fmt::format("*{} rows of this table were left out (rows {} to {}) to keep this under GitHub's "
                                "{}-character limit.*",
                                rows - kKeepHead - kKeepTail, kKeepHead + 1, rows - kKeepTail, kGitHubBodyLimit));
    }
    i = end;
  }
  return out;
}

}  // namespace

size_t github_chars(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string fit_github_body(const std::string& body, size_t max_chars) {
  if (github_chars(body) <= max_chars) return body;
  std::vector<std::string> lines = fold_tables(lines_of(body));
  std::string folded = join(lines, "\n");
  if (github_chars(folded) <= max_chars) return folded;

  const std::string note = fmt::format(
      "\n\n---\n*This description was cut to stay under GitHub's limit of {} characters (it had {}). The full "
      "report is in the run's saved result under `.kernelbot/results/`.*",
      max_chars, github_chars(body));
  // Room for the note and for closing what the cut leaves open.
  const size_t closers = std::string("\n```\n\n</details>").size() * 4;
  const size_t room = max_chars > github_chars(note) + closers ? max_chars - github_chars(note) - closers : 0;
  std::string kept;
  size_t kept_chars = 0, open_details = 0;
  bool in_fence = false;
  for (const auto& line : lines) {
    size_t n = github_chars(line) + 1;
    if (kept_chars + n > room) break;
    kept += line + "\n";
    kept_chars += n;
    if (line.starts_with("```")) in_fence = !in_fence;
    if (line.find("<details") != std::string::npos) ++open_details;
    if (line.find("</details>") != std::string::npos && open_details > 0) --open_details;
  }
  if (in_fence) kept += "```\n";
  for (; open_details > 0; --open_details) kept += "\n</details>\n";
  return kept + note;
}

}  // namespace kb::bot
