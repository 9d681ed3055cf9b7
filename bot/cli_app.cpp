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
  register_version_command(app, ctx);
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  // The first word that is neither a flag nor a flag's value is where a command stands.
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (word == "--config") {
      ++i;
      continue;
    }
    if (word.empty() || word[0] == '-') continue;
    if (std::find(commands.begin(), commands.end(), word) != commands.end()) break;
    std::string list;
    for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;
    const std::string near = closest_match(word, commands);
    return "unknown command '" + word + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
           " (the commands: " + list + ")";
  }
  return error.what();
}

}  // namespace kb::bot
