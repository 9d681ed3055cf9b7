#include "bot/change/project_check.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>

#include "profiler/sandbox/sandbox_process.h"

namespace kb::bot {
namespace {

// A copy of the repository without what a build does not need from it (VCS data, our own
// state, build trees), so the project's commands run on the changed tree in isolation.
void copy_tree(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    std::string name = entry.path().filename().string();
    if (name == ".git" || name == ".kernelbot" || name.starts_with("build")) continue;
    fs::copy(entry.path(), to / name, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
}

std::string tail(const std::string& s, size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

}  // namespace

ProjectCheck check_project(const config::Config& config, const SourceChange& change, double timeout_s) {
  ProjectCheck check;
  if (config.project.build.empty() && config.project.test.empty()) return check;
  check.ran = true;
  auto dir = std::filesystem::temp_directory_path() / ("kernelbot-check-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  copy_tree(config.root, dir);
  std::ofstream(dir / change.path, std::ios::binary) << change.updated;
  double total = 0;
  for (const auto& [what, command] :
       {std::pair<std::string, std::string>{"build", config.project.build}, {"test", config.project.test}}) {
    if (command.empty()) continue;
    spdlog::info("running the project's {} command on the changed tree: {}", what, command);
    profiler::SandboxCommand cmd;
    cmd.argv = {"/bin/sh", "-c", command};
    cmd.working_dir = dir;
    cmd.scrub_env = true;  // the project's build needs no tokens either
    cmd.limits.wall_time_s = timeout_s;
    auto r = profiler::run_sandboxed(cmd);
    total += r.wall_s;
    if (!r.succeeded()) {
      check.passed = false;
      check.summary = what + " failed (" + r.describe() + "): " + tail(r.err.empty() ? r.out : r.err, 600);
      break;
    }
  }
  std::filesystem::remove_all(dir);
  if (check.passed)
    check.summary = "the project's own build/test commands passed on the changed tree in " +
                    std::to_string(static_cast<int>(total)) + " s";
  return check;
}

}  // namespace kb::bot
