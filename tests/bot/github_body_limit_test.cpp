// Bodies over GitHub's 65536-character limit: long tables folded first, then a cut at a line
// that leaves no code fence or <details> open, always with a note saying so.
#include <gtest/gtest.h>

#include <string>

#include "bot/forge/github_body_limit.h"

using kb::bot::fit_github_body;
using kb::bot::github_chars;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

std::string table(int rows) {
  std::string t = "| step | idea |\n| --- | --- |\n";
  for (int i = 1; i <= rows; ++i) t += "| " + std::to_string(i) + " | idea number " + std::to_string(i) + " |\n";
  return t;
}

TEST(GitHubBodyLimit, CountsCharactersNotBytes) {
  EXPECT_EQ(github_chars("µs → 2×"), 7u);
  std::string body = "µ" + std::string(99, 'x');  // 101 bytes, 100 characters
  EXPECT_EQ(fit_github_body(body, 100), body);
}

TEST(GitHubBodyLimit, ABodyThatFitsIsLeftAlone) {
  std::string body = "intro\n\n" + table(200);
  EXPECT_EQ(fit_github_body(body, body.size()), body);
}

TEST(GitHubBodyLimit, LongTablesAreFoldedWithANote) {
  std::string body = "intro\n\n" + table(300) + "\nclosing words\n";
  std::string fitted = fit_github_body(body, body.size() / 2);
  EXPECT_LE(github_chars(fitted), body.size() / 2);
  EXPECT_NE(fitted.find("| step | idea |\n| --- | --- |\n| 1 | idea number 1 |\n"), std::string::npos);
  EXPECT_NE(fitted.find("| 15 | idea number 15 |\n| 296 | idea number 296 |\n"), std::string::npos) << fitted;
  EXPECT_EQ(fitted.find("| 16 | idea number 16 |"), std::string::npos);
  EXPECT_NE(fitted.find("| 300 | idea number 300 |\n\n*280 rows of this table were left out (rows 16 to 295)"),
            std::string::npos);
  EXPECT_NE(fitted.find("closing words"), std::string::npos);  // prose is kept whole
}

TEST(GitHubBodyLimit, WhatFoldingCannotSaveIsCutAtALineWithFencesAndDetailsClosed) {
  std::string body = "verdict\n\n<details><summary>log</summary>\n\n```\n";
  for (int i = 0; i < 3000; ++i) body += "log line " + std::to_string(i) + " of a long build output\n";
  body += "```\n\n</details>\n";
  std::string fitted = fit_github_body(body, 20000);
  EXPECT_LE(github_chars(fitted), 20000u);
  EXPECT_GT(github_chars(fitted), 18000u);  // cut near the limit, not far below it
  EXPECT_EQ(fitted.rfind("verdict\n", 0), 0u);
  EXPECT_EQ(count(fitted, "```") % 2, 0u) << "an open code fence would swallow the note";
  EXPECT_EQ(count(fitted, "<details>"), count(fitted, "</details>"));
  EXPECT_NE(fitted.find("cut to stay under GitHub's limit of 20000 characters (it had " +
                        std::to_string(github_chars(body)) + ")"),
            std::string::npos);
}

}  // namespace
