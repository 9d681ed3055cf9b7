// What a variant server is told about itself (server_identity.h): both servers of a job start
// with the same argv, nothing in it says whose variant it serves or that it is judged, and the
// judge reads a crash from the server's exit code.
#include "profiler/judge/runtime/server_identity.h"

#include <gtest/gtest.h>

#include <csignal>

namespace kb::judge {
namespace {

TEST(ServerIdentity, BothServersGetTheSameArgvAndNoWordOfWhoseOrOfJudging) {
  const std::vector<std::string> args = server_arguments(1, false);
  EXPECT_EQ(args, (std::vector<std::string>{"/proc/self/exe", "--serve", "--fd", "3", "--device", "1"}));
  for (const bool verbose : {false, true})
    for (const auto& a : server_arguments(0, verbose))
      for (const char* word : {"candidate", "baseline", "original", "who", "judge", "verify", "trial", "seed"})
        EXPECT_EQ(a.find(word), std::string::npos) << word << " in " << a;
  EXPECT_EQ(server_arguments(0, true).back(), "--verbose");
}

TEST(ServerIdentity, ExitCodesSayHowTheVariantEndedItsServer) {
  EXPECT_EQ(server_exit_code_for_signal(SIGSEGV), kExitVariantSignalBase + SIGSEGV);
  EXPECT_EQ(describe_server_exit(server_exit_code_for_signal(SIGSEGV)), "SIGSEGV (segmentation fault)");
  EXPECT_EQ(describe_server_exit(server_exit_code_for_signal(SIGABRT)), "SIGABRT (abort)");
  EXPECT_EQ(describe_server_exit(kExitVariantCalledExit), "it called exit()");
  EXPECT_EQ(describe_server_exit(kExitVariantContextLost), "its CUDA context was lost");
  EXPECT_EQ(describe_server_exit(1), "exit code 1");
  EXPECT_EQ(describe_server_exit(0), "exit code 0");
  for (int code : {kExitVariantCalledExit, kExitVariantContextLost, server_exit_code_for_signal(SIGBUS)})
    EXPECT_TRUE(server_exit_is_crash(code)) << code;
  // The judge's own codes (a server that failed itself, or ended cleanly) are not the variant's crash.
  for (int code : {0, 1, 2, 3, 4, 127, kExitVariantSignalBase}) EXPECT_FALSE(server_exit_is_crash(code)) << code;
}

TEST(ServerIdentity, TheFatalSignalsHaveNamesAndNoOtherDoes) {
  // The judge's crash line and a server's own (variant_call.cpp's handler) name a signal alike.
  EXPECT_STREQ(fatal_signal_name(SIGSEGV), "SIGSEGV (segmentation fault)");
  EXPECT_STREQ(fatal_signal_name(SIGBUS), "SIGBUS (bus error)");
  EXPECT_STREQ(fatal_signal_name(SIGILL), "SIGILL (illegal instruction)");
  EXPECT_STREQ(fatal_signal_name(SIGFPE), "SIGFPE (arithmetic exception)");
  for (int sig : {0, SIGTERM, SIGKILL, 27, -1}) EXPECT_EQ(fatal_signal_name(sig), nullptr) << sig;
}

}  // namespace
}  // namespace kb::judge
