#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "bot/commands/commands.h"
#include "bot/starter_config.h"
#include "cuda_source/source_scanner.h"

namespace kb::bot {

void register_init_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("init", "Write a commented starter kernelbot.toml with a [[kernel]] table per "
                                         "launcher found in the repository");
  struct Options {
    std::string path;
    bool force = false;
    bool print = false;
  };
  auto opt = std::make_shared<Options>();
  cmd->add_option("path", opt->path, "Repository root (default: the current directory)")->check(CLI::ExistingDirectory);
  cmd->add_flag("--force", opt->force, "Overwrite an existing kernelbot.toml");
  cmd->add_flag("--stdout", opt->print, "Print the starter config instead of writing it");
  cmd->callback([&ctx, opt] {
    std::filesystem::path root = opt->path.empty() ? std::filesystem::current_path() : std::filesystem::path(opt->path);
    auto target = ctx.options.config_path.empty() ? root / "kernelbot.toml" : std::filesystem::path(ctx.options.config_path);
    auto scan = cuda_source::scan_tree(root, config::ProjectConfig{}.discover_exclude);
    std::string text = render_starter_config(scan);
    if (opt->print) {
      std::cout << text;
      return;
    }
    if (std::filesystem::exists(target) && !opt->force)
      throw UsageError(target.string() + " exists already; pass --force to overwrite it");
    std::ofstream out(target);
    out << text;
    if (!out) throw Error("cannot write " + target.string());
    spdlog::info("wrote {} with {} kernel table(s); check the lines marked 'check:', then run `kernelbot config check`",
                 target.string(), scan.launchers.size());
    for (const auto& s : scan.skipped) spdlog::warn("skipped {}:{}: {}", s.file, s.line, s.message);
  });
}

}  // namespace kb::bot
