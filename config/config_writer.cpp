#include "config/config_writer.h"

#include <toml++/toml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <type_traits>

#include "config/config_keys.h"

namespace kb::config {
namespace {

// Relaxed: 0.005 prints as 0.005, not as its nearest double to 17 digits.
constexpr auto kTomlFlags = toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision;

toml::array strings(const std::vector<std::string>& values) {
  toml::array a;
  for (const auto& v : values) a.push_back(v);
  return a;
}

toml::table tolerances(const std::map<std::string, Tolerance>& values) {
  toml::table t;
  for (const auto& [dtype, tol] : values) t.insert(dtype, toml::table{{"rtol", tol.rtol}, {"atol", tol.atol}});
  return t;
}

toml::table kernel_table(const KernelSpec& k) {
  toml::table t{{"name", k.name}, {"source", k.source}};
  if (!k.launcher.empty() || k.global.empty()) t.insert("launcher", k.launcher);
  for (const auto& [key, value] :
       {std::pair{"global", &k.global}, std::pair{"grid", &k.grid}, std::pair{"block", &k.block},
        std::pair{"shared_bytes", &k.shared_bytes}, std::pair{"template_args", &k.template_args}})
    if (!value->empty()) t.insert(key, *value);
  t.insert("include_dirs", strings(k.include_dirs));
  t.insert("defines", strings(k.defines));
  t.insert("nvcc_flags", strings(k.nvcc_flags));
  t.insert("extra_sources", strings(k.extra_sources));
  t.insert("link_libs", strings(k.link_libs));
  if (!k.setup_source.empty()) t.insert("setup_source", k.setup_source);
  if (!k.flops.empty()) t.insert("flops", k.flops);
  if (!k.bytes.empty()) t.insert("bytes", k.bytes);
  if (!k.tolerance.empty()) t.insert("tolerance", tolerances(k.tolerance));
  toml::array sizes;
  for (const auto& s : k.sizes) {
    toml::table st;
    for (const auto& [name, value] : s.values) st.insert(name, value);
    sizes.push_back(std::move(st));
  }
  t.insert("sizes", std::move(sizes));
  if (!k.size_rules.empty()) {
    toml::table rules;
    for (const auto& [name, rule] : k.size_rules) {
      toml::table rt{{"multiple_of", rule.multiple_of}, {"min", rule.min}};
      if (rule.max > 0) rt.insert("max", rule.max);
      rules.insert(name, std::move(rt));
    }
    t.insert("size_rules", std::move(rules));
  }
  if (!k.tunables.empty()) {
    toml::table tun;
    for (const auto& [macro, values] : k.tunables) tun.insert(macro, strings(values));
    t.insert("tunables", std::move(tun));
  }
  toml::array args;
  for (const auto& a : k.args) {
    toml::table at{{"name", a.name}, {"role", to_string(a.role)}};
    if (a.role != ArgRole::stream) at.insert("dtype", to_string(a.dtype));  // a stream has no dtype
    if (!a.count.empty()) at.insert("count", a.count);
    if (!a.value.empty()) at.insert("value", a.value);
    if (!a.distribution.empty()) at.insert("distribution", a.distribution);
    if (!a.error_scale.empty()) at.insert("error_scale", a.error_scale);
    if (a.range.size() == 2) at.insert("range", strings(a.range));
    args.push_back(std::move(at));
  }
  t.insert("arg", std::move(args));
  return t;
}

toml::table string_table(const std::map<std::string, std::string>& values) {
  toml::table t;
  for (const auto& [name, value] : values) t.insert(name, value);
  return t;
}

// JSON values back into TOML (JSON's null has no TOML form: it is left out).
void insert_json(toml::table& t, const std::string& name, const nlohmann::json& value);

toml::array json_array(const nlohmann::json& items) {
  toml::array a;
  for (const auto& item : items) {
    toml::table holder;
    insert_json(holder, "v", item);
    if (auto* node = holder.get("v")) a.push_back(std::move(*node));
  }
  return a;
}

void insert_json(toml::table& t, const std::string& name, const nlohmann::json& value) {
  if (value.is_object()) {
    toml::table sub;
    for (const auto& [k, v] : value.items()) insert_json(sub, k, v);
    t.insert(name, std::move(sub));
  } else if (value.is_array()) {
    t.insert(name, json_array(value));
  } else if (value.is_string()) {
    t.insert(name, value.get<std::string>());
  } else if (value.is_boolean()) {
    t.insert(name, value.get<bool>());
  } else if (value.is_number_integer()) {
    t.insert(name, value.get<int64_t>());
  } else if (value.is_number()) {
    t.insert(name, value.get<double>());
  }
}

toml::table json_table(const JsonTable& value) {
  toml::table t;
  auto j = nlohmann::json::parse(value.json, nullptr, false);
  if (j.is_object())
    for (const auto& [k, v] : j.items()) insert_json(t, k, v);
  return t;
}

// Adds one key of the key table to `t`, as whatever TOML type its field has.
void insert_key(toml::table& t, const ConfigKey& key, const Config& c) {
  // The table's accessors hand out mutable pointers (the loader fills through them); here the
  // field is only read.
  std::visit(
      [&](const auto* value) {
        using T = std::remove_cvref_t<decltype(*value)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) t.insert(key.name, strings(*value));
        else if constexpr (std::is_same_v<T, std::map<std::string, Tolerance>>) t.insert(key.name, tolerances(*value));
        else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>)
          t.insert(key.name, string_table(*value));
        else if constexpr (std::is_same_v<T, JsonTable>) t.insert(key.name, json_table(*value));
        else t.insert(key.name, *value);
      },
      key.field(const_cast<Config&>(c)));
}

// `key = value` on one line, in double quotes as people write TOML (the starter file is theirs).
// NOLINTNEXTLINE(performance-unnecessary-value-param): a copy on purpose, its sub-tables are made inline
std::string starter_line(toml::table one) {
  for (auto& [name, value] : one)
    if (auto* table = value.as_table()) table->is_inline(true);
  std::ostringstream out;
  out << toml::toml_formatter(one, kTomlFlags & ~toml::format_flags::allow_literal_strings);
  return out.str();
}

toml::table document(const Config& c) {
  toml::table doc;
  for (const auto& section : config_sections()) {
    toml::table t;
    for (const auto& key : config_keys())
      if (key.section == section) insert_key(t, key, c);
    doc.insert(section, std::move(t));
  }
  toml::array kernels;
  for (const auto& k : c.kernels) kernels.push_back(kernel_table(k));
  doc.insert("kernel", std::move(kernels));
  return doc;
}

}  // namespace

std::string to_toml_text(const Config& config) {
  std::ostringstream out;
  out << "# effective configuration";
  if (!config.file.empty()) out << " of " << config.file.string();
  out << " (defaults filled in)\n\n" << toml::toml_formatter(document(config), kTomlFlags) << "\n";
  return out.str();
}

std::string to_json_text(const Config& config) {
  std::ostringstream out;
  out << toml::json_formatter(document(config),
                              toml::json_formatter::default_flags | toml::format_flags::relaxed_float_precision)
      << "\n";
  return out.str();
}

std::string commented_defaults() {
  const Config defaults;
  std::string out;
  for (const auto& section : config_sections()) {
    out += "# [" + section + "]\n";
    for (const auto& key : config_keys()) {
      if (key.section != section) continue;
      toml::table one;
      insert_key(one, key, defaults);
      std::vector<std::string> lines;
      if (const auto* table = one.get(key.name)->as_table(); table && !table->empty()) {
        // A table (tolerance) gets one dotted line per entry: short, and valid TOML uncommented.
        for (const auto& [name, value] : *table) {
          toml::table entry;
          // `entry_name = name`: clang before 16 (clang-tidy's) cannot capture a structured binding.
          value.visit([&entry, &entry_name = name](const auto& v) { entry.insert(entry_name, v); });
          lines.push_back(std::string(key.name) + "." + starter_line(entry));
        }
      } else {
        lines.push_back(starter_line(one));
      }
      for (size_t i = 0; i < lines.size(); ++i) {
        std::string text = "# " + lines[i];
        if (i == 0) {  // descriptions line up where the value leaves room
          text.resize(std::max<size_t>(text.size() + 1, 33), ' ');
          text += "# " + std::string(key.description);
        }
        out += text + "\n";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace kb::config
