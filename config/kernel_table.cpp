#include "config/kernel_table.h"

#include <set>

#include "config/config_paths_check.h"
#include "config/config_sections.h"
#include "config/count_check.h"
#include "config/kernel_target.h"
#include "config/size_expression.h"
#include "config/value_rules.h"

namespace kb::config {
namespace {

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

}  // namespace

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
    if (problem.key.starts_with("arg[")) {  // "arg[2].name": at that argument's table
      const size_t i = std::stoul(problem.key.substr(4));
      r.diag().error(i < k.args.size() ? k.args[i].pos : kpos, r.field(problem.key), problem.message);
      continue;
    }
    const toml::node* n = r.table().get(problem.key);
    r.diag().error(n ? n->source() : r.table().source(), r.field(problem.key), problem.message);
  }
}

}  // namespace kb::config
