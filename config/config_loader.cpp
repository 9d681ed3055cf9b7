#include "config/config_loader.h"
#include "common/edit_distance.h"
#include "common/file_io.h"
#include "common/path_containment.h"

#include <toml++/toml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <type_traits>

#include "config/config_error.h"
#include "config/config_keys.h"
#include "config/count_check.h"
#include "config/kernel_target.h"
#include "config/size_expression.h"
#include "config/value_rules.h"
#include "core/errors.h"
#include "core/gpu_arch.h"

namespace kb::config {
namespace {

// Collects problems with their positions; the loader keeps going after each one.
class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}
  void error(const toml::source_region& where, const std::string& field, const std::string& message) {
    items_.push_back({file_, static_cast<int>(where.begin.line), static_cast<int>(where.begin.column), field, message});
  }
  void error(const SourcePos& where, const std::string& field, const std::string& message) {
    items_.push_back({file_, where.line, where.column, field, message});
  }
  const std::string& file() const { return file_; }
  std::vector<ConfigDiagnostic>& items() { return items_; }

 private:
  std::string file_;
  std::vector<ConfigDiagnostic> items_;
};

const char* type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

// Reads the keys of one table, remembering which ones it knows; finish() reports the rest as
// unknown. Each get() reports a wrong type at the value's own position.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string path, Diagnostics& diag)
      : table_(table), path_(std::move(path)), diag_(diag) {}

  std::string field(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  const toml::table& table() const { return table_; }
  Diagnostics& diag() { return diag_; }

  // Returns the node for `key` (marking it known), or null. Reports a missing required key.
  const toml::node* node(std::string_view key, bool required = false) {
    known_.insert(std::string(key));
    const toml::node* n = table_.get(key);
    if (!n && required)
      diag_.error(table_.source(), field(key),
                  "missing required field '" + std::string(key) + "'" + (path_.empty() ? "" : " in [" + path_ + "]"));
    return n;
  }

  void get(std::string_view key, std::string& out, bool required = false) {
    if (const auto* n = node(key, required)) {
      if (auto v = n->value_exact<std::string>()) out = *v;
      else type_error(*n, key, "a string");
    }
  }
  void get(std::string_view key, int64_t& out, bool required = false) {
    if (const auto* n = node(key, required)) {
      if (auto v = n->value_exact<int64_t>()) out = *v;
      else type_error(*n, key, "an integer");
    }
  }
  void get(std::string_view key, double& out, bool required = false) {
    if (const auto* n = node(key, required)) {
      if (auto v = n->value_exact<double>()) out = *v;
      else if (auto i = n->value_exact<int64_t>()) out = static_cast<double>(*i);
      else type_error(*n, key, "a number");
    }
  }
  void get(std::string_view key, bool& out, bool required = false) {
    if (const auto* n = node(key, required)) {
      if (auto v = n->value_exact<bool>()) out = *v;
      else type_error(*n, key, "a boolean");
    }
  }
  void get(std::string_view key, std::vector<std::string>& out, bool required = false) {
    const auto* n = node(key, required);
    if (!n) return;
    const auto* arr = n->as_array();
    if (!arr) return type_error(*n, key, "an array of strings");
    out.clear();
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::node& item = *arr->get(i);
      if (auto v = item.value_exact<std::string>()) out.push_back(*v);
      else
        diag_.error(item.source(), field(key) + "[" + std::to_string(i) + "]",
                    std::string("expected a string, got ") + type_name(item));
    }
  }
  // A string that may also be written as a number (expressions: count = 1024 or count = "n").
  void get_expression(std::string_view key, std::string& out, bool required = false) {
    if (const auto* n = node(key, required)) {
      if (auto s = n->value_exact<std::string>()) out = *s;
      else if (auto i = n->value_exact<int64_t>()) out = std::to_string(*i);
      else if (auto d = n->value_exact<double>()) {
        std::ostringstream os;
        os.precision(17);
        os << *d;
        out = os.str();
        if (out.find_first_of(".eE") == std::string::npos) out += ".0";
      } else {
        type_error(*n, key, "a number or an expression string");
      }
    }
  }
  const toml::table* subtable(std::string_view key) {
    const auto* n = node(key);
    if (!n) return nullptr;
    if (const auto* t = n->as_table()) return t;
    type_error(*n, key, "a table");
    return nullptr;
  }

  void type_error(const toml::node& n, std::string_view key, const std::string& expected) {
    diag_.error(n.source(), field(key), "expected " + expected + ", got " + type_name(n));
  }

  void finish() {
    for (const auto& [key, value] : table_) {
      std::string k(key.str());
      if (known_.count(k)) continue;
      std::string hint;
      size_t best = 3;
      for (const auto& candidate : known_) {
        size_t d = edit_distance(k, candidate);
        if (d < best) {
          best = d;
          hint = " (did you mean '" + candidate + "'?)";
        }
      }
      diag_.error(key.source(), field(k),
                  "unknown key '" + k + "'" + (path_.empty() ? "" : " in [" + path_ + "]") + hint);
    }
  }

 private:
  const toml::table& table_;
  std::string path_;
  Diagnostics& diag_;
  std::set<std::string> known_;
};

SourcePos pos_of(const toml::node& n, const Diagnostics& d) {
  return {d.file(), static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

void check_one_of(TableReader& r, std::string_view key, const std::string& value,
                  const std::vector<const char*>& allowed) {
  for (const char* a : allowed)
    if (value == a) return;
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  const toml::node* n = r.table().get(key);
  r.diag().error(n ? n->source() : r.table().source(), r.field(key), "'" + value + "' is not one of: " + list);
}

// `zero_refused`: why 0 is refused, for a positive key where 0 might be taken for "no limit".
void check_positive(TableReader& r, std::string_view key, double value, bool allow_zero = false,
                    const char* zero_refused = nullptr) {
  if (value > 0 || (allow_zero && value == 0)) return;
  const toml::node* n = r.table().get(key);
  std::string message = std::string("must be ") + (allow_zero ? "zero or more" : "greater than zero");
  if (value == 0 && zero_refused) message += std::string(": ") + zero_refused;
  r.diag().error(n ? n->source() : r.table().source(), r.field(key), message);
}

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

// A file the config names (a prelude header, a setup source) that is not there is the field's
// error, reported at the value; `config check` and every command that loads the config agree.
void check_file_exists(TableReader& r, const Config& c, const char* key, const std::string& path, const toml::node* at,
                       const std::string& field) {
  if (path.empty() || c.root.empty() || std::filesystem::exists(c.resolve(path))) return;
  r.diag().error(at ? at->source() : r.table().source(), field,
                 "file not found: " + c.resolve(path).string() + " (" + key +
                     " paths are relative to the directory of kernelbot.toml)");
}

// Sources that resolve outside the repository (`../x.cu`, a symlink out of it) are read, compiled
// and put in PRs as the repository's own: an error unless [project] sources_outside_root says so.
void check_sources_inside_root(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                               const toml::node* at) {
  if (c.root.empty() || c.project.sources_outside_root) return;
  const std::filesystem::path repository = repository_root_of(c.root, std::filesystem::current_path());
  const toml::array* items = at ? at->as_array() : nullptr;
  for (size_t i = 0; i < paths.size(); ++i)
    if (!resolves_inside(repository, c.resolve(paths[i])))
      r.diag().error(items && i < items->size() ? items->get(i)->source() : (at ? at->source() : r.table().source()),
                     r.field(key) + (items ? "[" + std::to_string(i) + "]" : ""),
                     "\"" + paths[i] + "\" resolves outside the repository (" +
                         std::filesystem::weakly_canonical(c.resolve(paths[i])).string() +
                         "); set [project] sources_outside_root = true if that is meant");
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

// A directory the config names (an include directory) that is not there.
void check_directory_exists(TableReader& r, const Config& c, const char* key, const std::string& path,
                            const toml::node* at, const std::string& field) {
  if (path.empty() || c.root.empty() || std::filesystem::is_directory(c.resolve(path))) return;
  r.diag().error(at ? at->source() : r.table().source(), field,
                 (std::filesystem::exists(c.resolve(path)) ? "not a directory: " : "directory not found: ") +
                     c.resolve(path).string() + " (" + key + " paths are relative to the directory of kernelbot.toml)");
}

// Each item of a list of paths (include_dirs, extra_sources, prelude) at its own position.
void check_path_list(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                     bool directories) {
  const toml::node* n = r.table().get(key);
  const toml::array* items = n ? n->as_array() : nullptr;
  for (size_t i = 0; items && i < paths.size() && i < items->size(); ++i) {
    const std::string field = r.field(key) + "[" + std::to_string(i) + "]";
    if (directories) check_directory_exists(r, c, key, paths[i], items->get(i), field);
    else check_file_exists(r, c, key, paths[i], items->get(i), field);
  }
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
  auto error = [&](const char* key, const std::string& message) {
    r.diag().error(r.table().source(), r.field(key), message);
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

void read_section(TableReader& r, const std::string& section, Config& c) {
  for (const auto& key : config_keys())
    if (key.section == section && !read_boolean_as_string(r, key, c))
      std::visit([&](auto* field) { read_value(r, key.name, *field); }, key.field(c));
  r.finish();
  for (const auto& key : config_keys())
    if (key.section == section) check_key(r, key, key.field(c));
  check_section_rules(r, section, c);
}

// range = [lo, hi]: two expressions (integers or strings over the size names).
void read_range(TableReader& r, ArgSpec& a) {
  const toml::node* n = r.node("range");
  if (!n) return;
  const auto* arr = n->as_array();
  if (!arr || arr->size() != 2)
    return r.diag().error(n->source(), r.field("range"),
                          "expected [lo, hi] (two integers or expressions over the size names; values are "
                          "drawn from lo <= v < hi)");
  for (size_t i = 0; i < 2; ++i) {
    const toml::node& item = *arr->get(i);
    if (auto v = item.value_exact<std::string>()) a.range.push_back(*v);
    else if (auto k = item.value_exact<int64_t>()) a.range.push_back(std::to_string(*k));
    else
      r.diag().error(item.source(), r.field("range") + "[" + std::to_string(i) + "]",
                     std::string("expected an integer or an expression string, got ") + type_name(item));
  }
  if (a.range.size() != 2) a.range.clear();
}

void read_arg(TableReader& r, ArgSpec& a) {
  r.get("name", a.name, true);
  std::string role, dtype;
  r.get("role", role, true);
  // A stream argument has no element type; every other role needs one.
  r.get("dtype", dtype, role != "stream");
  r.get_expression("count", a.count);
  r.get_expression("value", a.value);
  r.get("distribution", a.distribution);
  r.get("error_scale", a.error_scale);
  read_range(r, a);
  r.finish();
  if (!role.empty()) {
    if (auto parsed = parse_arg_role(role)) a.role = *parsed;
    else check_one_of(r, "role", role, arg_role_names());
  }
  if (!dtype.empty()) {
    if (auto parsed = parse_dtype(dtype)) a.dtype = *parsed;
    else check_one_of(r, "dtype", dtype, dtype_names());
  }
  if (!a.distribution.empty()) check_one_of(r, "distribution", a.distribution, distribution_names());
  if (!a.error_scale.empty()) check_one_of(r, "error_scale", a.error_scale, error_scale_names());
  bool roles_ok = !role.empty() && parse_arg_role(role);
  if (roles_ok && role_is_buffer(a.role) && a.count.empty())
    r.diag().error(r.table().source(), r.field("count"),
                   "missing required field 'count' (the element count of buffer '" + a.name + "')");
  if (roles_ok && a.role == ArgRole::size && a.value.empty())
    r.diag().error(r.table().source(), r.field("value"),
                   "missing required field 'value' (the size passed as '" + a.name + "')");
  if (roles_ok && !a.error_scale.empty() && a.role != ArgRole::output && a.role != ArgRole::inout)
    r.diag().error(r.table().get("error_scale")->source(), r.field("error_scale"),
                   "error_scale applies to outputs (role \"output\" or \"inout\"), not to a" +
                       std::string(a.role == ArgRole::input ? "n " : " ") + to_string(a.role) + " argument");
  if (roles_ok && a.role == ArgRole::size && !dtype.empty() && dtype_is_float(a.dtype))
    r.diag().error(r.table().get("dtype")->source(), r.field("dtype"), "a size argument needs an integer dtype");
  if (roles_ok && a.role == ArgRole::stream) {
    // The harness supplies the stream: anything that describes data is a mistake.
    for (const char* key : {"dtype", "count", "value", "distribution", "range"})
      if (const toml::node* n = r.table().get(key))
        r.diag().error(n->source(), r.field(key),
                       std::string("a stream argument takes no '") + key +
                           "' (the harness passes its own cudaStream_t and times the work queued on it)");
  }
  if (roles_ok && !a.range.empty()) {
    const toml::node* n = r.table().get("range");
    if (a.role != ArgRole::input && a.role != ArgRole::inout)
      r.diag().error(n->source(), r.field("range"),
                     std::string("range applies to input buffers, not to a ") + to_string(a.role) + " argument");
    else if (!dtype.empty() && dtype_is_float(a.dtype))
      r.diag().error(n->source(), r.field("range"),
                     "range applies to integer inputs (indices); a float input uses 'distribution'");
    if (!a.distribution.empty())
      r.diag().error(n->source(), r.field("range"), "give either 'range' or 'distribution', not both");
  }
}

// Records the argument's fields written as "TODO" on the kernel (with their positions) so they
// load as unfinished instead of failing the expression parser.
void note_unfinished(TableReader& r, const ArgSpec& a, KernelSpec& k) {
  auto note = [&](const char* key, const std::string& value, const std::string& field) {
    if (value != todo_marker) return;
    const toml::node* n = r.table().get(key);
    k.unfinished.push_back({field, n ? pos_of(*n, r.diag()) : a.pos});
  };
  note("count", a.count, r.field("count"));
  note("value", a.value, r.field("value"));
  for (size_t j = 0; j < a.range.size(); ++j) {
    if (a.range[j] != todo_marker) continue;
    const toml::node* n = r.table().get("range");
    k.unfinished.push_back({r.field("range") + "[" + std::to_string(j) + "]", n ? pos_of(*n, r.diag()) : a.pos});
  }
}

// size_rules = { n = { multiple_of = 8, min = 64, max = 4096 } }: each a positive integer, min <= max.
void read_size_rules(TableReader& r, KernelSpec& k) {
  const toml::table* rules = r.subtable("size_rules");
  if (!rules) return;
  for (const auto& [key, node] : *rules) {
    const std::string name(key.str());
    const std::string field = r.field("size_rules." + name);
    const toml::table* t = node.as_table();
    if (!t) {
      r.diag().error(node.source(), field,
                     std::string("expected a table { multiple_of = ..., min = ..., max = ... }, got ") +
                         type_name(node));
      continue;
    }
    SizeRule rule;
    TableReader rr(*t, field, r.diag());
    rr.get("multiple_of", rule.multiple_of);
    rr.get("min", rule.min);
    rr.get("max", rule.max);
    rr.finish();
    check_positive(rr, "multiple_of", static_cast<double>(rule.multiple_of));
    check_positive(rr, "min", static_cast<double>(rule.min));
    if (t->get("max")) check_positive(rr, "max", static_cast<double>(rule.max));
    if (rule.max > 0 && rule.min > rule.max)
      r.diag().error(t->source(), field,
                     "min = " + std::to_string(rule.min) + " is above max = " + std::to_string(rule.max));
    else if (rule.multiple_of > 0 && rule.min > 0 && !first_allowed_from(rule, rule.min))
      r.diag().error(t->source(), field,
                     "no value between min and max is a multiple of " + std::to_string(rule.multiple_of));
    k.size_rules[name] = rule;
  }
}

// Every rule names a size the size sets define, and every configured size keeps its rule.
void check_size_rules(TableReader& r, const KernelSpec& k) {
  const toml::table* rules = r.table().get("size_rules") ? r.table().get("size_rules")->as_table() : nullptr;
  if (!rules) return;
  for (const auto& [name, rule] : k.size_rules) {
    const toml::node* n = rules->get(name);
    const auto where = n ? n->source() : rules->source();
    const std::string field = r.field("size_rules." + name);
    if (!k.sizes.empty() && !k.sizes.front().values.count(name)) {
      r.diag().error(where, field, "no size set defines '" + name + "'");
      continue;
    }
    if (rule.multiple_of < 1 || rule.min < 1 || rule.max < 0) continue;  // reported above
    for (size_t i = 0; i < k.sizes.size(); ++i) {
      const auto v = k.sizes[i].values.find(name);
      if (v == k.sizes[i].values.end()) continue;
      const std::string why = size_rule_violation(rule, v->second);
      if (!why.empty())
        r.diag().error(where, r.field("sizes[" + std::to_string(i) + "]." + name),
                       name + " = " + std::to_string(v->second) + " " + why + " (" + field + ")");
    }
  }
}

void read_kernel(TableReader& r, KernelSpec& k, const Config& config) {
  r.get("name", k.name, true);
  r.get("source", k.source, true);
  r.get("launcher", k.launcher);  // or `global`: kernel_target_problems() says which is missing
  r.get("global", k.global);
  r.get_expression("grid", k.grid);
  r.get_expression("block", k.block);
  r.get_expression("shared_bytes", k.shared_bytes);
  r.get("template_args", k.template_args);
  r.get("include_dirs", k.include_dirs);
  r.get("defines", k.defines);
  r.get("nvcc_flags", k.nvcc_flags);
  r.get("extra_sources", k.extra_sources);
  r.get("link_libs", k.link_libs);
  r.get("setup_source", k.setup_source);
  r.get_expression("flops", k.flops);
  r.get_expression("bytes", k.bytes);
  read_tolerance_map(r, "tolerance", k.tolerance);

  // The [[kernel.arg]] array has no line of its own: an argument's error falls back to its header.
  for (const auto& [key, node] : r.table())
    if (key.str() != "arg") k.field_pos[r.field(key.str())] = pos_of(node, r.diag());
  if (const toml::node* args = r.node("arg", true)) {
    const toml::array* arr = args->as_array();
    if (!arr || !arr->is_array_of_tables()) {
      r.type_error(*args, "arg", "an array of tables ([[kernel.arg]])");
    } else {
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::table& t = *arr->get(i)->as_table();
        ArgSpec a;
        a.pos = pos_of(t, r.diag());
        TableReader ar(t, r.field("arg[" + std::to_string(i) + "]"), r.diag());
        read_arg(ar, a);
        note_unfinished(ar, a, k);
        for (const auto& [key, node] : t) k.field_pos[ar.field(key.str())] = pos_of(node, r.diag());
        k.args.push_back(std::move(a));
      }
    }
  }
  if (const toml::node* sizes = r.node("sizes")) {
    const toml::array* arr = sizes->as_array();
    if (!arr) {
      r.type_error(*sizes, "sizes", "an array of tables, e.g. [{ n = 1048576 }]");
    } else {
      for (size_t i = 0; i < arr->size(); ++i) {
        const toml::node& item = *arr->get(i);
        std::string field = r.field("sizes[" + std::to_string(i) + "]");
        const toml::table* t = item.as_table();
        if (!t) {
          r.diag().error(item.source(), field, std::string("expected a table of sizes, got ") + type_name(item));
          continue;
        }
        SizeSet set;
        for (const auto& [name, value] : *t) {
          if (auto v = value.value_exact<int64_t>(); v && *v > 0) set.values[std::string(name.str())] = *v;
          else r.diag().error(value.source(), field + "." + std::string(name.str()), "expected a positive integer");
        }
        k.sizes.push_back(std::move(set));
      }
    }
  }
  read_size_rules(r, k);
  if (const toml::table* tunables = r.subtable("tunables")) {
    for (const auto& [name, value] : *tunables) {
      std::string macro(name.str());
      std::string field = r.field("tunables." + macro);
      const toml::array* arr = value.as_array();
      if (!arr || arr->empty()) {
        r.diag().error(value.source(), field, "expected a non-empty array of values");
        continue;
      }
      for (const auto& v : *arr) {
        if (auto i = v.value_exact<int64_t>()) k.tunables[macro].push_back(std::to_string(*i));
        else if (auto s = v.value_exact<std::string>()) k.tunables[macro].push_back(*s);
        else r.diag().error(v.source(), field, std::string("expected integers or strings, got ") + type_name(v));
      }
    }
  }
  r.finish();

  // Semantic checks that need the whole table.
  if (!k.source.empty() && !config.root.empty() && !std::filesystem::exists(config.resolve(k.source)))
    r.diag().error(r.table().get("source")->source(), r.field("source"),
                   "file not found: " + config.resolve(k.source).string());
  check_file_exists(r, config, "setup_source", k.setup_source, r.table().get("setup_source"), r.field("setup_source"));
  check_sources_inside_root(r, config, "source", {k.source}, r.table().get("source"));
  check_sources_inside_root(r, config, "extra_sources", k.extra_sources, r.table().get("extra_sources"));
  check_path_list(r, config, "extra_sources", k.extra_sources, false);
  check_path_list(r, config, "include_dirs", k.include_dirs, true);
  if (const toml::node* n = r.table().get("name"); n && n->is_string())
    if (std::string why = kernel_name_problem(k.name); !why.empty()) r.diag().error(n->source(), r.field("name"), why);
  bool has_output = false;
  std::set<std::string> names_seen;
  std::set<std::string> used_names;
  // Each name an expression reads, with the field that reads it: a name no size set defines is
  // that field's error, at its own line.
  struct NameUse {
    std::string name, text, field;
    SourcePos where;
  };
  std::vector<NameUse> name_uses;
  auto check_expr = [&](const std::string& text, const SourcePos& where, const std::string& field) {
    if (text.empty() || text == todo_marker) return;  // unfinished: listed by `config check`
    try {
      auto names = expression_names(text);
      used_names.insert(names.begin(), names.end());
      for (const auto& n : names) name_uses.push_back({n, text, field, where});
    } catch (const ExpressionError& e) {
      r.diag().error(where, field, e.what());
    }
  };
  for (size_t i = 0; i < k.args.size(); ++i) {
    const ArgSpec& a = k.args[i];
    std::string field = r.field("arg[" + std::to_string(i) + "]");
    if (!a.name.empty() && !names_seen.insert(a.name).second)
      r.diag().error(a.pos, field + ".name", "duplicate argument name '" + a.name + "'");
    if (a.role == ArgRole::output || a.role == ArgRole::inout) has_output = true;
    auto at = [&](const std::string& key) { return k.position_of(field + "." + key, a.pos); };
    check_expr(a.count, at("count"), field + ".count");
    check_expr(a.value, at("value"), field + ".value");
    for (size_t j = 0; j < a.range.size(); ++j)
      check_expr(a.range[j], at("range"), field + ".range[" + std::to_string(j) + "]");
    for (const auto& set : k.sizes)
      if (std::string why = value_range_problem(a, set.values); !why.empty()) {
        r.diag().error(at("value"), field + ".value", why + " at size set " + set.label());
        break;  // one size set shows it
      }
    if (role_is_buffer(a.role))
      for (const auto& set : k.sizes)
        if (std::string why = count_problem(a.count, a.dtype, set.values); !why.empty()) {
          r.diag().error(at("count"), field + ".count", why + " at size set " + set.label());
          break;  // one size set shows it; the others would repeat it
        }
  }
  SourcePos kpos = pos_of(r.table(), r.diag());
  check_expr(k.flops, kpos, r.field("flops"));
  check_expr(k.bytes, kpos, r.field("bytes"));
  if (!k.args.empty() && !has_output)
    r.diag().error(kpos, r.field("arg"), "needs at least one argument with role \"output\" or \"inout\"");
  if (!used_names.empty() && k.sizes.empty())
    r.diag().error(kpos, r.field("sizes"),
                   "missing required field 'sizes' (the arguments use size names; give at least one size set)");
  std::set<std::string> defined_sizes;
  for (const auto& set : k.sizes)
    for (const auto& [name, value] : set.values) defined_sizes.insert(name);
  if (!k.sizes.empty())
    for (const auto& use : name_uses)
      if (!defined_sizes.count(use.name)) {
        std::string listed;
        for (const auto& n : defined_sizes) listed += (listed.empty() ? "" : ", ") + n;
        r.diag().error(use.where, use.field,
                       "\"" + use.text + "\" names " + use.name +
                           ", which no size set defines (the sizes: " + (listed.empty() ? "none" : listed) + ")");
      }
  // A name some size sets define and others do not: those sets' error.
  for (size_t i = 0; i < k.sizes.size(); ++i)
    for (const auto& name : used_names)
      if (defined_sizes.count(name) && !k.sizes[i].values.count(name))
        r.diag().error(kpos, r.field("sizes[" + std::to_string(i) + "]"),
                       "size set does not define '" + name + "', which the arguments use");
  check_size_rules(r, k);
  // A launch expression `init` could not guess holds "TODO": unfinished, as a count is.
  for (const auto& [key, value] :
       {std::pair{"grid", &k.grid}, std::pair{"block", &k.block}, std::pair{"shared_bytes", &k.shared_bytes},
        std::pair{"template_args", &k.template_args}})
    if (expression_reads(*value, todo_marker))
      k.unfinished.push_back({r.field(key), pos_of(*r.table().get(key), r.diag())});
  std::vector<TargetProblem> target_problems = kernel_target_problems(k);
  for (auto& problem : launch_literal_problems(k)) target_problems.push_back(std::move(problem));
  for (const auto& problem : target_problems) {
    if (problem.key.rfind("arg[", 0) == 0) {  // "arg[2].name": at that argument's table
      const size_t i = std::stoul(problem.key.substr(4));
      r.diag().error(i < k.args.size() ? k.args[i].pos : kpos, r.field(problem.key), problem.message);
      continue;
    }
    const toml::node* n = r.table().get(problem.key);
    r.diag().error(n ? n->source() : r.table().source(), r.field(problem.key), problem.message);
  }
}

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
