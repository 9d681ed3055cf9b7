#include "bot/cli_app.h"

#include <algorithm>

#include "bot/commands/commands.h"
#include "common/edit_distance.h"

namespace kb::bot {

void build_cli(CLI::App& app, CliContext& ctx) {
  app.require_subcommand(1);
  app.fallthrough();  // global flags are accepted after the subcommand too
  app.add_option("--config", ctx.options.config_path, "Config file (default: the nearest kernelbot.toml)");
  app.add_flag("-v,--verbose", ctx.options.verbosity, "More logging (repeat for more)");
  app.add_flag("-q,--quiet", ctx.options.quiet, "Only warnings and errors on stderr");
  app.add_flag("--json", ctx.options.json, "Machine-readable output on stdout (logs stay on stderr)");

  register_init_command(app, ctx);
  register_discover_command(app, ctx);
  register_profile_command(app, ctx);
  register_eval_command(app, ctx);
  register_search_command(app, ctx);
  register_run_command(app, ctx);
  register_pr_command(app, ctx);
  register_publish_command(app, ctx);
  register_config_command(app, ctx);
  register_check_command(app, ctx);
  register_status_command(app, ctx);
  register_version_command(app, ctx);
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args) {
  // The words that are neither flags nor --config's value walk down the command tree ("config
  // check"); the first that names no command where one is expected is the unknown command.
  const CLI::App* level = &app;
  std::string path;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (word == "--config") {
      ++i;
      continue;
    }
    if (word.empty() || word[0] == '-') continue;
    std::vector<std::string> commands;
    for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; }))
      commands.push_back(sub->get_name());
    if (commands.empty()) break;  // a command's own argument (a path, a directory)
    if (auto found = std::find(commands.begin(), commands.end(), word); found != commands.end()) {
      level = level->get_subcommand(word);
      path += word + " ";
      continue;
    }
    std::string list;
    for (const auto& c : commands) list += (list.empty() ? "" : ", ") + path + c;
    const std::string near = closest_match(word, commands);
    return "unknown command '" + path + word + "'" + (near.empty() ? "" : "; did you mean '" + path + near + "'?") +
           " (the commands: " + list + ")";
  }
  // No command where one is needed ("kernelbot", "kernelbot config"): name the choices.
  std::string list;
  for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; }))
    list += (list.empty() ? "" : ", ") + path + sub->get_name();
  if (!list.empty() && std::string(error.what()).find("subcommand is required") != std::string::npos)
    return (path.empty() ? std::string("a command is required")
                         : "'" + path.substr(0, path.size() - 1) + "' needs a command") +
           ": " + list;
  return error.what();
}

}  // namespace kb::bot
