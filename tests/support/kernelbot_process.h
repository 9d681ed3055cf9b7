// Runs the kernelbot binary of this build as a user would, for the tests of its commands end to
// end: in a given directory, with no stdin, stdout and stderr captured apart.
#pragma once

#include <filesystem>
#include <string>

namespace kb::testing {

struct KernelbotRun {
  int exit_code = -1;  // -1 when it did not exit normally
  std::string out, err;
};

// `kernelbot <args>` in `dir`. `env` goes before the command as a shell takes it, e.g.
// "GITHUB_TOKEN=x" or "env -u GITHUB_TOKEN". `stdout_to`, when set, is where stdout goes instead of
// being captured, as a shell's redirection writes it: "/dev/full", "&9" (an open descriptor).
KernelbotRun run_kernelbot(const std::string& args, const std::filesystem::path& dir, const std::string& env = "",
                           const std::string& stdout_to = "");

}  // namespace kb::testing
