#include "tests/support/kernelbot_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kb::testing {
namespace {

std::string read_and_remove(const std::filesystem::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  std::error_code ec;
  std::filesystem::remove(p, ec);
  return s.str();
}

}  // namespace

KernelbotRun run_kernelbot(const std::string& args, const std::filesystem::path& dir, const std::string& env,
                           const std::string& stdout_to) {
  static std::atomic<int> counter{0};
  const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                    ("kb_run_" + std::to_string(getpid()) + "_" + std::to_string(++counter));
  const std::filesystem::path err = out.string() + ".err";
  const std::string cmd = "cd '" + dir.string() + "' && " + env + " '" + KB_BINARY_DIR + "/bot/kernelbot' " + args +
                          " >" + (stdout_to.empty() ? "'" + out.string() + "'" : stdout_to) + " 2>'" + err.string() +
                          "' </dev/null";
  const int status = std::system(cmd.c_str());
  KernelbotRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_and_remove(out);
  r.err = read_and_remove(err);
  return r;
}

}  // namespace kb::testing
