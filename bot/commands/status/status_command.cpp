// `kernelbot status`: where every configured kernel stands (bot/publish/kernel_status.h), in the terminal
// or as one JSON object, from the archive and, when [github] has a repository and a token, the
// open PRs on GitHub. No GPU, no search, nothing written.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/forge/forge_factory.h"
#include "bot/forge/github_client.h"
#include "bot/publish/kernel_status.h"
#include "common/text_table.h"
#include "core/number_format.h"

namespace kb::bot {
namespace {

nlohmann::json budget_json(const search::BudgetUse& b) {
  return {{"candidates", b.candidates},       {"wall_time_s", b.wall_time_s},
          {"prompt_tokens", b.prompt_tokens}, {"completion_tokens", b.completion_tokens},
          {"cost_usd", b.cost_usd},           {"llm_requests", b.llm_requests}};
}

void print_status(const StatusView& view, bool json) {
  if (json) {
    auto kernels = nlohmann::json::array();
    for (const auto& k : view.kernels)
      kernels.push_back({{"kernel", k.kernel},
                         {"state", k.state},
                         {"speedup", k.speedup},
                         {"verified", k.verified},
                         {"date", k.date},
                         {"gpu", k.gpu},
                         {"pr_number", k.pr_number},
                         {"pr", k.pr_url},
                         {"note", k.note},
                         {"budget", budget_json(k.budget)}});
    std::cout << nlohmann::json{{"ok", true},
                                {"exit_code", 0},
                                {"forge_asked", view.forge_asked},
                                {"forge_note", view.forge_note},
                                {"budget", budget_json(view.spent)},
                                {"kernels", kernels}}
                     .dump(2)
              << "\n";
    return;
  }
  TextTable table({"kernel", "state", "speedup", "verified", "measured", "GPU", "pull request / note"});
  for (const auto& k : view.kernels)
    table.add_row({k.kernel, k.state, k.speedup > 0 ? format_speedup(k.speedup) : "-",
                   k.verified.empty() ? "-" : k.verified.substr(0, 40), k.date.empty() ? "-" : k.date.substr(0, 10),
                   k.gpu.empty() ? "-" : k.gpu,
                   !k.pr_url.empty() ? k.pr_url
                   : k.note.empty()  ? "-"
                                     : k.note});
  std::cout << table.render();
  const auto& b = view.spent;
  std::cout << fmt::format("budget spent by the last results: {} candidates, {:.0f} s, {} model requests, ${:.2f}\n",
                           b.candidates, b.wall_time_s, b.llm_requests, b.cost_usd);
  if (!view.forge_note.empty()) std::cout << view.forge_note << "\n";
}

}  // namespace

void register_status_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand(
      "status",
      "Where every configured kernel stands: its last result (speedup, re-verification, date, GPU), its open PR, "
      "declined or ignored ones and why, kernels that cannot be targeted and what to configure, and the budget "
      "spent. From .kernelbot/ and, with [github].repository and a token, GitHub's open PRs; needs no GPU");
  auto offline = std::make_shared<bool>(false);
  cmd->add_flag("--offline", *offline, "Do not ask GitHub for the open PRs: the archive only");
  cmd->callback([&ctx, offline] {
    const auto& config = ctx.config();
    std::unique_ptr<GitHubClient> client;
    const std::string token = config.github.repository.empty() ? "" : github_token(config.github);
    if (!*offline && !token.empty())
      client = std::make_unique<GitHubClient>(config.github.api_url, config.github.repository, token);
    StatusView view = gather_status(config, client.get());
    if (*offline) view.forge_note = "--offline: PRs are not looked up";
    print_status(view, ctx.options.json);
  });
}

}  // namespace kb::bot
