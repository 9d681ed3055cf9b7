#include "config/config_sections.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <type_traits>

#include "config/config_keys.h"
#include "config/config_paths_check.h"
#include "config/value_rules.h"
#include "core/gpu_arch.h"

namespace kb::config {

void read_tolerance_map(TableReader& parent, std::string_view key, std::map<std::string, Tolerance>& out) {
  const toml::table* t = parent.subtable(key);
  if (!t) return;
  TableReader r(*t, parent.field(key), parent.diag());
  for (const auto& [dtype_key, node] : *t) {
    std::string dtype(dtype_key.str());
    if (!parse_dtype(dtype)) {
      r.node(dtype);  // reported below as a bad dtype, not as an unknown key
      std::string names;
      for (const char* n : dtype_names()) names += (names.empty() ? "" : ", ") + std::string(n);
      parent.diag().error(dtype_key.source(), r.field(dtype), "'" + dtype + "' is not a dtype (" + names + ")");
      continue;
    }
    const toml::table* tol = node.as_table();
    r.node(dtype);
    if (!tol) {
      r.type_error(node, dtype, "a table { rtol = ..., atol = ... }");
      continue;
    }
    Tolerance value = out.count(dtype) ? out[dtype] : Tolerance{};
    TableReader tr(*tol, r.field(dtype), parent.diag());
    tr.get("rtol", value.rtol);
    tr.get("atol", value.atol);
    tr.finish();
    if (value.rtol < 0 || value.atol < 0)
      parent.diag().error(tol->source(), r.field(dtype), "rtol and atol must not be negative");
    out[dtype] = value;
  }
  r.finish();
}

namespace {

void read_value(TableReader& r, const char* key, std::map<std::string, Tolerance>& out) {
  read_tolerance_map(r, key, out);
}

// A table of strings (HTTP headers).
void read_value(TableReader& r, const char* key, std::map<std::string, std::string>& out) {
  const toml::table* t = r.subtable(key);
  if (!t) return;
  out.clear();
  for (const auto& [name, node] : *t) {
    if (auto v = node.value_exact<std::string>()) out[std::string(name.str())] = *v;
    else
      r.diag().error(node.source(), r.field(key) + "." + std::string(name.str()),
                     std::string("expected a string, got ") + type_name(node));
  }
}

nlohmann::json to_json(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, value] : *t) j[std::string(name.str())] = to_json(value);
    return j;
  }
  if (const auto* a = node.as_array()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& value : *a) j.push_back(to_json(value));
    return j;
  }
  if (auto v = node.value_exact<std::string>()) return *v;
  if (auto v = node.value_exact<int64_t>()) return *v;
  if (auto v = node.value_exact<double>()) return *v;
  if (auto v = node.value_exact<bool>()) return *v;
  std::ostringstream text;  // dates and times: as TOML writes them
  node.visit([&](const auto& value) { text << value; });
  return text.str();
}

// Any table, kept as the JSON object it converts to (request fields merged into every request).
void read_value(TableReader& r, const char* key, JsonTable& out) {
  if (const toml::table* t = r.subtable(key)) out.json = to_json(*t).dump();
}
template <class T>
void read_value(TableReader& r, const char* key, T& out) {
  r.get(key, out);
}

// The table's simple rules for one key: a bound on a number, allowed values of a string or list.
void check_key(TableReader& r, const ConfigKey& key, FieldRef field) {
  std::visit(
      [&](auto* value) {
        using T = std::remove_pointer_t<decltype(value)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
          if (key.bound != Bound::any)
            check_positive(r, key.name, static_cast<double>(*value), key.bound == Bound::zero_or_more,
                           key.zero_refused);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (!key.allowed.empty()) check_one_of(r, key.name, *value, key.allowed);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (!key.allowed.empty())
            for (const auto& item : *value) check_one_of(r, key.name, item, key.allowed);
        }
      },
      field);
}

bool is_owner_slash_name(const std::string& text) {
  auto slash = text.find('/');
  return slash != std::string::npos && slash != 0 && slash + 1 != text.size() &&
         text.find('/', slash + 1) == std::string::npos;
}

// Each target architecture is a name nvcc knows (config/value_rules.h).
void check_target_archs(TableReader& r, const Config& c) {
  const toml::array* archs = r.table().get("target_archs") ? r.table().get("target_archs")->as_array() : nullptr;
  for (size_t i = 0; archs && i < c.project.target_archs.size() && i < archs->size(); ++i)
    if (std::string why = gpu_arch_problem(c.project.target_archs[i]); !why.empty())
      r.diag().error(archs->get(i)->source(), r.field("target_archs") + "[" + std::to_string(i) + "]", why);
  if (const toml::node* arch = r.table().get("cuda_arch"); arch && !c.project.cuda_arch.empty())
    if (std::string why = gpu_arch_problem(c.project.cuda_arch); !why.empty())
      r.diag().error(arch->source(), r.field("cuda_arch"), why);
}

void check_project_files(TableReader& r, const Config& c) {
  check_path_list(r, c, "prelude", c.project.prelude, false);
  check_path_list(r, c, "extra_sources", c.project.extra_sources, false);
  check_path_list(r, c, "include_dirs", c.project.include_dirs, true);
  check_file_exists(r, c, "setup_source", c.project.setup_source, r.table().get("setup_source"),
                    r.field("setup_source"));
  check_sources_inside_root(r, c, "extra_sources", c.project.extra_sources, r.table().get("extra_sources"));
  // "auto" and "none" are settings; anything else is a compile_commands.json or its directory.
  if (const std::string& db = c.project.compile_commands;
      db != "auto" && db != "none" && !db.empty() && !c.root.empty() && !std::filesystem::exists(c.resolve(db)))
    r.diag().error(r.table().get("compile_commands")->source(), r.field("compile_commands"),
                   "file not found: " + c.resolve(db).string() +
                       " (a compile_commands.json or its directory, relative to the directory of kernelbot.toml; "
                       "\"auto\" looks in build*/, \"none\" uses none)");
}

// A URL key's value parses as an http(s) URL with a host, at the value's line.
void check_url(TableReader& r, const char* key, const std::string& url) {
  const toml::node* n = r.table().get(key);
  if (!n) return;
  if (std::string why = url_problem(url); !why.empty()) r.diag().error(n->source(), r.field(key), why);
}

// Rules over more than one key, or with their own wording: code, run after the table's rules.
void check_section_rules(TableReader& r, const std::string& section, const Config& c) {
  // At the key's own line when it is written; a missing key at the section's header.
  auto error = [&](const char* key, const std::string& message) {
    const toml::node* n = r.table().get(key);
    r.diag().error(n ? n->source() : r.table().source(), r.field(key), message);
  };
  if (section == "llm" && c.llm.provider == "openai-compatible" && c.llm.model.empty())
    error("model", "missing required field 'model' (needed when provider = \"openai-compatible\")");
  if (section == "llm" && c.llm.api_key_header.find_first_of(" :\r\n") != std::string::npos)
    error("api_key_header",
          "must be a header name (\"Authorization\", \"api-key\"), got \"" + c.llm.api_key_header + "\"");
  if (section == "llm" && c.llm.api_key_header.empty())
    error("api_key_header", "must name a header (\"Authorization\" sends \"Bearer KEY\")");
  // Below this a prompt (the rules, the profile, the kernel) leaves no room for a kernel's reply.
  constexpr int64_t kLeastContextTokens = 4096;
  if (section == "llm" && c.llm.context_tokens > 0 && c.llm.context_tokens < kLeastContextTokens)
    error("context_tokens", "must be 0 (unknown) or at least " + std::to_string(kLeastContextTokens) +
                                ": a prompt and a kernel's reply do not fit in " +
                                std::to_string(c.llm.context_tokens) + " tokens");
  if (section == "search" && c.search.proposer == "replay" && c.search.replay_file.empty())
    error("replay_file", "missing required field 'replay_file' (needed when proposer = \"replay\")");
  if (section == "search" && c.search.screen_margin < 1.0) error("screen_margin", "must be 1.0 or more");
  if (section == "verify" && c.verify.distributions.empty()) error("distributions", "needs at least one distribution");
  if (section == "bench" && c.bench.max_samples < c.bench.min_samples)
    error("max_samples", "must be at least min_samples");
  if (section == "bench" && c.bench.min_speedup < 1.0) error("min_speedup", "must be 1.0 or more");
  if (section == "llm") check_url(r, "base_url", c.llm.base_url);
  if (section == "github") check_url(r, "api_url", c.github.api_url);
  if (section == "project") check_project_files(r, c);
  if (section == "project") check_target_archs(r, c);
  if (section == "github" && !c.github.repository.empty() && !is_owner_slash_name(c.github.repository))
    r.diag().error(r.table().get("repository")->source(), r.field("repository"),
                   "expected \"owner/name\", got \"" + c.github.repository + "\"");
}

// One fixed section, driven by the key table: read every key (wrong types reported in table
// order), then unknown keys, then the per-key rules, then the section's own rules.
// A string key whose values include "true" and "false" (send_temperature = auto | true | false)
// also takes a TOML boolean, as people write one.
bool read_boolean_as_string(TableReader& r, const ConfigKey& key, Config& c) {
  FieldRef field = key.field(c);
  std::string** text = std::get_if<std::string*>(&field);
  const toml::node* n = r.table().get(key.name);
  if (!text || !n || !n->is_boolean()) return false;
  bool has_true = false, has_false = false;
  for (const char* a : key.allowed) {
    has_true = has_true || std::string_view(a) == "true";
    has_false = has_false || std::string_view(a) == "false";
  }
  if (!has_true || !has_false) return false;
  r.node(key.name);
  **text = *n->value_exact<bool>() ? "true" : "false";
  return true;
}

}  // namespace

void read_section(TableReader& r, const std::string& section, Config& c) {
  for (const auto& key : config_keys())
    if (key.section == section && !read_boolean_as_string(r, key, c))
      std::visit([&](auto* field) { read_value(r, key.name, *field); }, key.field(c));
  r.finish();
  for (const auto& key : config_keys())
    if (key.section == section) check_key(r, key, key.field(c));
  check_section_rules(r, section, c);
}

}  // namespace kb::config
