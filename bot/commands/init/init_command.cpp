#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/commands/init/config_file_write.h"
#include "bot/commands/init/config_relative_paths.h"
#include "bot/commands/init/starter_config.h"
#include "common/file_write.h"
#include "core/errors.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {
namespace {

// .kernelbot/ (results, the archive, work files) beside the config is no part of the repository:
// a .gitignore inside it says so without touching the user's own .gitignore.
void ignore_work_directory(const std::filesystem::path& config_dir) {
  const auto dir = config_dir / ".kernelbot";
  const auto ignore = dir / ".gitignore";
  std::error_code ec;
  if (std::filesystem::exists(ignore, ec)) return;
  std::filesystem::create_directories(dir, ec);
  try {  // only where nothing is yet: a .gitignore the user wrote there stays theirs
    write_new_file(ignore, "# kernelbot's results, archive and work files: not part of the repository\n*\n");
  } catch (const Error&) {
    spdlog::warn("could not write {}: add .kernelbot/ to your .gitignore", ignore.string());
  }
}

// The files the tables point at (setup source stubs), each only where nothing is yet: a file the
// user has filled in is theirs.
void write_stubs(const std::filesystem::path& root, const StarterConfig& starter) {
  for (const auto& [relative, text] : starter.files) {
    if (write_new_file(root / relative, text))
      spdlog::info("wrote {}: fill in its TODOs (the table's setup_source points at it)", (root / relative).string());
    else
      spdlog::info("{} exists already: left as it is (the table's setup_source points at it)",
                   (root / relative).string());
  }
}

// --json: what was written (or, with --stdout, the text itself) as one object.
void print_json(const StarterConfig& starter, const std::string& written) {
  nlohmann::json out{{"ok", true},
                     {"exit_code", 0},
                     {"tables", starter.tables},
                     {"commented_out", starter.commented_out},
                     {"candidates", starter.candidates},
                     {"targets",
                      {{"launchers", starter.launchers}, {"kernel_targets", starter.candidates - starter.launchers}}},
                     {"kernel_targets", starter.kernel_targets}};
  out["files"] = nlohmann::json::array();
  for (const auto& file : starter.files) out["files"].push_back(file.first);
  if (written.empty()) out["text"] = starter.text;
  else out["written"] = written;
  std::cout << out.dump(2) << "\n";
}

}  // namespace

void register_init_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("init",
                                 "Write a commented starter kernelbot.toml with a [[kernel]] table per "
                                 "launcher and kernel target found in the repository (or those --kernel/--file choose)");
  struct Options {
    std::string path;
    bool force = false;
    bool print = false;
    StarterOptions starter;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("path", opt->path, "Repository root (default: the current directory)")->check(CLI::ExistingDirectory);
  cmd->add_flag("--force", opt->force, "Overwrite an existing kernelbot.toml");
  cmd->add_flag("--stdout", opt->print, "Print the starter config instead of writing it");
  cmd->add_option("--kernel", opt->starter.kernel_patterns,
                  "Only launchers, and kernel targets of __global__s, whose name matches PATTERN: a glob "
                  "(\"*gemm*\") or a substring (repeatable)")
      ->type_name("PATTERN");
  cmd->add_option("--file", opt->starter.files,
                  "Only launchers and kernels defined in PATH, relative to the root (repeatable)")
      ->type_name("PATH");
  cmd->callback([&ctx, opt] {
    std::filesystem::path root = opt->path.empty() ? std::filesystem::current_path() : std::filesystem::path(opt->path);
    auto target = ctx.options.config_path.empty() ? root / "kernelbot.toml"
                                                  : std::filesystem::path(ctx.options.config_path);
    for (const auto& f : opt->starter.files)
      if (!std::filesystem::is_regular_file(root / f))
        throw UsageError("--file " + f + ": no such file under " + root.string());
    auto scan = cuda_source::scan_tree(root, config::ProjectConfig{}.discover_exclude);
    StarterConfig starter = render_starter_config(scan, root, opt->starter);
    bool narrowed = !opt->starter.kernel_patterns.empty() || !opt->starter.files.empty();
    // A choice that matched nothing is a mistake to report, not a reason to replace a config.
    if (narrowed && starter.tables == 0)
      throw UsageError("--kernel/--file matched none of the " + starter.found +
                       " found (`kernelbot discover` lists them); nothing was written");
    // A config without a [[kernel]] is one `config check` rejects: say so instead of writing it.
    if (starter.tables == 0)
      throw UsageError("no CUDA kernel or launcher found under " + root.string() + " (" +
                       std::to_string(scan.files.size()) +
                       " source file(s) scanned; `kernelbot discover` lists what it sees): run init in the "
                       "repository, or pass its path; nothing was written");
    // Paths in a config are relative to its own directory, which need not be the scanned root.
    starter.text = rebase_config_paths(starter.text,
                                       path_prefix(root, std::filesystem::absolute(target).parent_path()));
    if (opt->print) {
      if (ctx.options.json) print_json(starter, "");
      else std::cout << starter.text;
      for (const auto& file : starter.files)
        spdlog::info("--stdout: {} (a setup source stub a table points at) is not written", file.first);
    } else {
      if (std::filesystem::exists(target) && !std::filesystem::is_directory(target) && !opt->force)
        throw UsageError(target.string() + " exists already; pass --force to overwrite it");
      const ConfigWrite written = write_config_keeping_backup(target, starter.text);
      if (!written.changed) spdlog::info("{} already holds this config; left as it was", target.string());
      if (written.backup)
        spdlog::info("the previous {} is kept as {}", target.filename().string(), written.backup->string());
      ignore_work_directory(std::filesystem::absolute(target).parent_path());
      write_stubs(root, starter);
      if (ctx.options.json) print_json(starter, target.string());
    }
    for (const auto& s : scan.skipped) spdlog::warn("skipped {}:{}: {}", s.file, s.line, s.message);
    spdlog::info("{} {} kernel table(s) for {} of the {} found{}",
                 opt->print ? "printed" : "wrote " + target.string() + " with", starter.tables - starter.commented_out,
                 starter.tables, starter.found,
                 starter.commented_out
                     ? fmt::format(" ({} written commented out: see the 'Not written' lines)", starter.commented_out)
                     : "");
    // Every table commented out: the file is written to be edited, but no command accepts it yet.
    if (starter.tables == starter.commented_out)
      spdlog::warn("every [[kernel]] table is written commented out (see the 'Not written' lines): `kernelbot "
                   "config check` rejects the file until you make one drivable and remove its '# '");
    if (starter.kernel_targets > 0)
      spdlog::info("{} of the tables are kernel targets (global = ...) for kernels launched inline: check their grid, "
                   "block and shared_bytes lines",
                   starter.kernel_targets);
    if (!narrowed && starter.tables > 1)
      spdlog::info("to keep only some, run again with --force and --kernel PATTERN (glob or substring of the "
                   "launcher's or the kernel's name) or --file PATH, both repeatable");
    if (!opt->print)
      spdlog::info("next: fill in the fields written \"TODO\", check the lines marked 'check:', then run "
                   "`kernelbot config check`");
  });
}

}  // namespace kb::bot
