// The commands people write to the bot in PR comments: how they are spelled, what is not one, and
// who may give them.
#include "bot/pr_comments/pr_commands.h"

#include <gtest/gtest.h>

using kb::bot::may_command;
using kb::bot::parse_pr_command;
using kb::bot::PrCommandKind;

TEST(PrCommands, EachCommandIsRead) {
  EXPECT_EQ(parse_pr_command("@kernelbot rebench")->kind, PrCommandKind::rebench);
  EXPECT_EQ(parse_pr_command("@kernelbot rebase")->kind, PrCommandKind::rebase);
  EXPECT_EQ(parse_pr_command("@kernelbot explain")->kind, PrCommandKind::explain);
  EXPECT_EQ(parse_pr_command("@kernelbot ignore")->kind, PrCommandKind::ignore);
  EXPECT_EQ(parse_pr_command("@kernelbot unignore")->kind, PrCommandKind::unignore);
  EXPECT_EQ(parse_pr_command("@kernelbot help")->kind, PrCommandKind::help);
}

TEST(PrCommands, CaseSpacingPunctuationAndCrlfAreForgiven) {
  EXPECT_EQ(parse_pr_command("@KernelBot   ReBench")->kind, PrCommandKind::rebench);
  EXPECT_EQ(parse_pr_command("  @kernelbot: rebase!\r\n")->kind, PrCommandKind::rebase);
  EXPECT_EQ(parse_pr_command("@kernelbot, explain please")->kind, PrCommandKind::explain);
  EXPECT_EQ(parse_pr_command("Thanks!\r\n\r\n@kernelbot ignore\r\n")->kind, PrCommandKind::ignore);
}

TEST(PrCommands, AnUnknownWordOrNoWordAsksForHelpNamingTheWord) {
  auto c = parse_pr_command("@kernelbot merge");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, PrCommandKind::help);
  EXPECT_EQ(c->unknown, "merge");
  EXPECT_NE(kb::bot::pr_command_help(c->unknown).find("`merge`"), std::string::npos);
  c = parse_pr_command("@kernelbot");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, PrCommandKind::help);
  EXPECT_EQ(c->unknown, "");
}

TEST(PrCommands, MentionsQuotesCodeAndOtherAccountsAreNoCommands) {
  EXPECT_FALSE(parse_pr_command("Looks good, thanks @kernelbot rebench later maybe"));
  EXPECT_FALSE(parse_pr_command("> @kernelbot rebench\n\nI disagree with this"));
  EXPECT_FALSE(parse_pr_command("```\n@kernelbot rebench\n```\n"));
  EXPECT_FALSE(parse_pr_command("@kernelbotx rebench"));
  EXPECT_FALSE(parse_pr_command(""));
  // The help table the bot posts names every command without giving one.
  EXPECT_FALSE(parse_pr_command(kb::bot::pr_command_help("")));
}

TEST(PrCommands, TheFirstCommandLineCounts) {
  EXPECT_EQ(parse_pr_command("@kernelbot explain\n@kernelbot ignore")->kind, PrCommandKind::explain);
}

TEST(PrCommands, OnlyWriteMaintainAndAdminMayCommand) {
  EXPECT_TRUE(may_command("admin", "admin"));
  EXPECT_TRUE(may_command("write", "maintain"));
  EXPECT_TRUE(may_command("write", "write"));
  EXPECT_TRUE(may_command("write", "custom-release-role"));
  EXPECT_FALSE(may_command("read", "triage"));
  EXPECT_FALSE(may_command("read", "read"));
  EXPECT_FALSE(may_command("none", ""));
}
