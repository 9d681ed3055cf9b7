#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bot/commands/commands.h"
#include "bot/onboarding/kernel_target_table.h"
#include "bot/onboarding/target_inventory.h"
#include "common/text_table.h"
#include "config/config_loader.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {
namespace {

std::string param_list(const std::vector<cuda_source::ScannedParam>& params) {
  std::string out;
  for (const auto& p : params)
    out += (out.empty() ? "" : ", ") + p.type + (p.name.empty() ? "" : " " + p.name) +
           (p.default_value.empty() ? "" : " = " + p.default_value);
  return out;
}

nlohmann::json params_json(const std::vector<cuda_source::ScannedParam>& params) {
  auto out = nlohmann::json::array();
  for (const auto& p : params) {
    nlohmann::json j{{"type", p.type}, {"name", p.name}};
    if (!p.default_value.empty()) j["default"] = p.default_value;
    out.push_back(j);
  }
  return out;
}

void print_json(const cuda_source::ScanResult& scan, const std::filesystem::path& root,
                const TargetInventory& targets) {
  nlohmann::json j{{"root", root.string()}, {"files", scan.files}};
  j["targets"] = {{"launchers", targets.launchers.size()}, {"kernel_targets", targets.kernel_targets.size()}};
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : scan.kernels)
    j["kernels"].push_back({{"name", k.name},
                            {"file", k.file},
                            {"line", k.line},
                            {"params", params_json(k.params)},
                            {"template", k.template_params},
                            {"definition", k.is_definition}});
  j["launchers"] = nlohmann::json::array();
  for (const auto& l : scan.launchers) {
    auto launches = nlohmann::json::array();
    for (const auto& s : l.launches) {
      nlohmann::json launch{{"kernel", s.kernel}, {"config", s.launch_config}, {"line", s.line}};
      if (!s.via.empty()) launch["via"] = s.via;
      if (!s.variable.empty()) launch["pointer"] = s.variable;
      if (!s.api.empty()) launch["api"] = s.api;
      launches.push_back(launch);
    }
    j["launchers"].push_back({{"name", l.name},
                              {"file", l.file},
                              {"line", l.line},
                              {"return_type", l.return_type},
                              {"params", params_json(l.params)},
                              {"launches", launches},
                              {"device_side", l.is_kernel}});
    // Why init writes kernel targets for its launches instead of a launcher target.
    if (auto why = undrivable_launcher(l, {}); why && !l.is_kernel) j["launchers"].back()["not_drivable"] = *why;
  }
  j["skipped"] = nlohmann::json::array();
  for (const auto& s : scan.skipped)
    j["skipped"].push_back({{"file", s.file}, {"line", s.line}, {"message", s.message}});
  std::cout << j.dump(2) << "\n";
}

// "k<<<grid, block>>>", "k via detail::launch_tiled", "k (pointer `kernel`)", "k via cudaLaunchKernelEx()".
std::string launch_text(const cuda_source::ScannedLaunch& s) {
  std::string out = s.kernel + (s.api.empty() ? "<<<" + s.launch_config + ">>>" : " via " + s.api + "()");
  if (!s.variable.empty()) out += " (pointer `" + s.variable + "`)";
  if (!s.via.empty()) out += " in " + s.via;
  return out;
}

void print_text(const cuda_source::ScanResult& scan, const TargetInventory& targets) {
  TextTable kernels({"kernel", "location", "parameters"});
  for (const auto& k : scan.kernels) {
    if (!k.is_definition) continue;
    std::string name = k.template_params.empty() ? k.name : "template<" + k.template_params + "> " + k.name;
    kernels.add_row({name, k.file + ":" + std::to_string(k.line), param_list(k.params)});
  }
  TextTable launchers({"launcher", "location", "parameters", "launches"});
  for (const auto& l : scan.launchers) {
    std::string launches;
    for (const auto& s : l.launches) launches += (launches.empty() ? "" : ", ") + launch_text(s);
    launchers.add_row({l.name + (l.is_kernel ? " (device-side)" : ""), l.file + ":" + std::to_string(l.line),
                       param_list(l.params), launches});
  }
  std::cout << "Kernels (" << scan.kernels.size() << " in " << scan.files.size() << " files):\n"
            << kernels.render() << "\nLaunchers (" << scan.launchers.size() << "):\n"
            << launchers.render();
  std::string undrivable;
  for (const auto& l : scan.launchers)
    if (auto why = undrivable_launcher(l, {}); why && !l.is_kernel)
      for (const auto& s : l.launches)
        if (s.in_launcher_scope())  // a helper's launch is listed with the helper
          undrivable += "  " + s.file + ":" + std::to_string(s.line) + ": " + s.kernel + " launched by " + l.name +
                        ": " + *why + "\n";
  if (!undrivable.empty())
    std::cout << "\nLaunches kernelbot cannot drive through their function (`init` writes kernel targets, "
                 "global = \"...\", for their kernels):\n"
              << undrivable;
  std::cout << "\nTargets `init` writes a table for: " << targets.counts() << "\n";
  if (!scan.skipped.empty()) {
    std::cout << "\nSkipped (" << scan.skipped.size() << "):\n";
    for (const auto& s : scan.skipped) std::cout << "  " << s.file << ":" << s.line << ": " << s.message << "\n";
  }
}

}  // namespace

void register_discover_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("discover", "List the repository's __global__ kernels and the host functions that "
                                             "launch them (<<<...>>> sites)");
  auto path = std::make_shared<std::string>();
  cmd->add_option("path", *path, "Directory to scan (default: the repository root)")->check(CLI::ExistingDirectory);
  cmd->callback([&ctx, path] {
    auto root = ctx.scan_root(*path);
    std::vector<std::string> exclude = config::ProjectConfig{}.discover_exclude;
    if (path->empty() && !config::find_config_file(ctx.options.config_path, std::filesystem::current_path()).empty())
      exclude = ctx.config().project.discover_exclude;
    auto scan = cuda_source::scan_tree(root, exclude);
    const TargetInventory targets = take_inventory(scan, root);
    if (ctx.options.json) print_json(scan, root, targets);
    else print_text(scan, targets);
  });
}

}  // namespace kb::bot
