// `kernelbot search` as a user runs it: help, and the usage errors it must report (exit 2)
// before it touches a GPU, so these run anywhere.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/kernelbot_process.h"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Outcome kernelbot(const std::string& args) {
  auto r = kb::testing::run_kernelbot("--config " KB_SOURCE_DIR "/examples/kernelbot.toml " + args,
                                      std::filesystem::current_path());
  return {r.exit_code, r.out + r.err};
}

}  // namespace

TEST(SearchCli, HelpListsTheOptions) {
  auto o = kernelbot("search --help");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* opt : {"--kernel", "--proposer", "--rounds", "--max-candidates", "--max-wall-time", "--replay",
                          "--record", "--no-archive"})
    EXPECT_NE(o.output.find(opt), std::string::npos) << opt;
}

TEST(SearchCli, AnUnknownKernelIsAUsageErrorListingTheKnownOnes) {
  auto o = kernelbot("search --kernel nope");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("no [[kernel]] named 'nope'"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("saxpy, transpose, row_sum, layernorm"), std::string::npos) << o.output;
}

TEST(SearchCli, BadOptionsAreUsageErrors) {
  EXPECT_EQ(kernelbot("search").exit_code, 2);  // --kernel is required
  EXPECT_EQ(kernelbot("search --kernel saxpy --proposer genetic").exit_code, 2);
  EXPECT_EQ(kernelbot("search --kernel saxpy --rounds 0").exit_code, 2);
  EXPECT_EQ(kernelbot("search --kernel saxpy --max-wall-time 0").exit_code, 2);
  auto replay = kernelbot("search --kernel saxpy --proposer replay");
  EXPECT_EQ(replay.exit_code, 2) << replay.output;
  EXPECT_NE(replay.output.find("--replay FILE"), std::string::npos) << replay.output;
  EXPECT_EQ(kernelbot("search --kernel saxpy --replay /no/such/file.jsonl").exit_code, 2);
}
