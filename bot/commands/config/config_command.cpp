#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/checks/config_validation.h"
#include "bot/commands/commands.h"
#include "bot/onboarding/target_inventory.h"
#include "config/config_writer.h"
#include "cuda_source/tokens/source_scanner.h"
#include "profiler/evaluate/archs/target_archs.h"

namespace kb::bot {
namespace {

// Each kernel's target architectures and where they were read (profiler/evaluate/archs/target_archs.h):
// one line when every kernel has the same, else one per kernel, with what could not be read.
std::string target_archs_text(const config::Config& config) {
  std::vector<std::pair<std::string, profiler::TargetArchs>> read;
  for (const auto& k : config.kernels) read.emplace_back(k.name, profiler::read_target_archs(config, k));
  const bool same = std::all_of(read.begin(), read.end(), [&](const auto& r) {
    return profiler::describe_target_archs(r.second) == profiler::describe_target_archs(read.front().second);
  });
  std::string out;
  for (size_t i = 0; i < read.size() && !(same && i > 0); ++i) {
    const auto& [name, targets] = read[i];
    out += (same ? std::string("target architectures") : "kernel '" + name + "': target architectures") + ": " +
           profiler::describe_target_archs(targets) + "\n";
    for (const auto& e : targets.evidence) out += "  read: " + e + "\n";
    for (const auto& n : targets.notes) out += "  note: " + n + "\n";
  }
  return out;
}

nlohmann::json target_archs_json(const config::Config& config) {
  auto out = nlohmann::json::array();
  for (const auto& k : config.kernels) {
    const profiler::TargetArchs targets = profiler::read_target_archs(config, k);
    auto names = nlohmann::json::array();
    for (const auto& a : targets.archs) names.push_back(a.sm());
    if (targets.native) names.push_back("native");
    out.push_back({{"kernel", k.name},
                   {"archs", names},
                   {"source", targets.source},
                   {"read", targets.evidence},
                   {"notes", targets.notes}});
  }
  return out;
}

// What the tree the config sits in has a table for, counted as discover and init count it.
TargetInventory tree_targets(const config::Config& config) {
  return take_inventory(cuda_source::scan_tree(config.root, config.project.discover_exclude), config.root);
}

}  // namespace

void register_config_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("config", "Validate or print the configuration");
  cmd->require_subcommand(1);
  auto* check = cmd->add_subcommand(
      "check",
      "Validate kernelbot.toml: unknown keys, wrong types, missing fields and bad values, each with its line and "
      "column; then each [[kernel]] against its source (the launcher exists, the args match its parameters in "
      "number, order, role and dtype, the buffers fit in GPU memory). Fields written \"TODO\" are listed, not "
      "errors. Exit 0 when valid (TODOs included), 2 on any error");
  check->callback([&ctx] {
    const auto& config = validated_config(ctx);  // the same checks as check, profile and run
    const TargetInventory targets = tree_targets(config);
    size_t todo = 0;
    for (const auto& k : config.kernels) todo += k.unfinished.size();
    if (ctx.options.json) {
      auto fields = nlohmann::json::array();
      for (const auto& k : config.kernels)
        for (const auto& u : k.unfinished)
          fields.push_back({{"kernel", k.name}, {"field", u.field}, {"line", u.pos.line}});
      std::cout << nlohmann::json{{"ok", true},
                                  {"exit_code", 0},
                                  {"valid", true},
                                  {"file", config.file.string()},
                                  {"kernels", config.kernels.size()},
                                  {"todo", fields},
                                  {"targets",
                                   {{"launchers", targets.launchers.size()},
                                    {"kernel_targets", targets.kernel_targets.size()}}},
                                  {"target_archs", target_archs_json(config)}}
                       .dump()
                << "\n";
      return;
    }
    for (const auto& k : config.kernels)
      for (const auto& u : k.unfinished)
        std::cout << u.pos.file << ":" << u.pos.line << ":" << u.pos.column << ": TODO: " << u.field << " (kernel '"
                  << k.name << "')\n";
    std::cout << target_archs_text(config);
    std::cout << "the tree has " << targets.counts() << " (`kernelbot init` writes a table for each)\n";
    std::cout << config.file.string() << ": ok (" << config.kernels.size() << " kernel"
              << (config.kernels.size() == 1 ? "" : "s") << ")";
    if (todo > 0) std::cout << "; " << todo << " field" << (todo == 1 ? "" : "s") << " still TODO";
    std::cout << "\n";
  });
  auto* show = cmd->add_subcommand("show", "Print the effective configuration, defaults filled in");
  show->callback([&ctx] {
    const auto& config = ctx.config(/*allow_missing=*/true);
    std::cout << (ctx.options.json ? config::to_json_text(config) : config::to_toml_text(config));
  });
}

}  // namespace kb::bot
