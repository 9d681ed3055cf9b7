#include "config/config_loader.h"

#include <set>

#include "common/file_io.h"
#include "config/config_error.h"
#include "config/config_keys.h"
#include "config/config_sections.h"
#include "config/kernel_table.h"
#include "config/toml_table_reader.h"
#include "core/errors.h"

namespace kb::config {
namespace {

// An ignore_kernels entry that names no [[kernel]] ignores nothing: a typo, or a kernel renamed.
void warn_unmatched_ignores(const toml::table& doc, const Diagnostics& diag, Config& config) {
  const toml::node* list = doc.at_path("github.ignore_kernels").node();
  const toml::array* items = list ? list->as_array() : nullptr;
  for (size_t i = 0; items && i < items->size(); ++i) {
    const auto name = items->get(i)->value_exact<std::string>();
    if (!name || config.find_kernel(*name)) continue;
    std::string known;
    for (const auto& k : config.kernels) known += (known.empty() ? "" : ", ") + k.name;
    const toml::source_region& at = items->get(i)->source();
    config.warnings.push_back({diag.file(), static_cast<int>(at.begin.line), static_cast<int>(at.begin.column),
                               "github.ignore_kernels[" + std::to_string(i) + "]",
                               "'" + *name + "' names no [[kernel]], so it ignores nothing" +
                                   (known.empty() ? "" : " (the kernels: " + known + ")")});
  }
}

Config parse_document(const toml::table& doc, Diagnostics& diag, Config config) {
  TableReader top(doc, "", diag);
  for (const auto& section : config_sections()) {
    if (const auto* t = top.subtable(section)) {
      TableReader r(*t, section, diag);
      read_section(r, section, config);
    }
  }
  if (const toml::node* kernels = top.node("kernel")) {
    const toml::array* arr = kernels->as_array();
    // `kernel = []` is what `config show` prints for a config without kernels.
    if (!arr || (!arr->empty() && !arr->is_array_of_tables())) {
      top.type_error(*kernels, "kernel", "an array of tables ([[kernel]])");
    } else {
      std::set<std::string> names;
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::table& t = *arr->get(i)->as_table();
        KernelSpec k;
        k.pos = pos_of(t, diag);
        std::string path = "kernel[" + std::to_string(i) + "]";
        TableReader r(t, path, diag);
        read_kernel(r, k, config);
        if (!k.name.empty() && !names.insert(k.name).second)
          diag.error(k.pos, path + ".name", "duplicate kernel name '" + k.name + "'");
        config.kernels.push_back(std::move(k));
      }
    }
  }
  top.finish();
  warn_unmatched_ignores(doc, diag, config);
  return config;
}

}  // namespace

Config load_config_text(const std::string& text, const std::string& file_name, const std::filesystem::path& root) {
  Diagnostics diag(file_name);
  Config config;
  config.file = file_name;
  config.root = root;
  toml::table doc;
  try {
    doc = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    diag.error(e.source(), "", std::string(e.description()));
    throw ConfigError(std::move(diag.items()));
  }
  config = parse_document(doc, diag, std::move(config));
  if (!diag.items().empty()) throw ConfigError(std::move(diag.items()));
  return config;
}

Config load_config(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw ConfigError({{file.string(), 0, 0, "", "is a directory, not a config file (kernelbot.toml is a TOML file)"}});
  std::optional<std::string> text;
  try {
    text = try_read_text_file(file, kConfigFileLimitBytes);
  } catch (const Error& e) {  // a FIFO, a device, no permission, too large: the reader says which
    throw ConfigError({{file.string(), 0, 0, "", e.what()}});
  }
  if (!text) throw ConfigError({{file.string(), 0, 0, "", "cannot read the config file: no such file"}});
  auto root = std::filesystem::absolute(file).parent_path();
  return load_config_text(*text, file.string(), root);
}

std::filesystem::path find_config_file(const std::string& explicit_path, const std::filesystem::path& dir) {
  if (!explicit_path.empty()) return explicit_path;
  for (auto d = std::filesystem::absolute(dir); !d.empty(); d = d.parent_path()) {
    auto candidate = d / "kernelbot.toml";
    // Anything there, a symlink that loops or leads nowhere included: reading it says what is wrong.
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(candidate, ec))) return candidate;
    if (d == d.parent_path()) break;
  }
  return {};
}

}  // namespace kb::config