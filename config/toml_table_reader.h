// What the config's readers share inside config/ (never included outside it: toml++ stays in
// config/): the diagnostics a load collects with their positions, and the reader of one TOML table
// that knows its keys, reports wrong types where they are written and names unknown keys.
#pragma once

#include <toml++/toml.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/edit_distance.h"
#include "config/config.h"
#include "config/config_error.h"

namespace kb::config {

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

inline const char* type_name(const toml::node& node) {
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

inline SourcePos pos_of(const toml::node& n, const Diagnostics& d) {
  return {d.file(), static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

inline void check_one_of(TableReader& r, std::string_view key, const std::string& value,
                         const std::vector<const char*>& allowed) {
  for (const char* a : allowed)
    if (value == a) return;
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  const toml::node* n = r.table().get(key);
  r.diag().error(n ? n->source() : r.table().source(), r.field(key), "'" + value + "' is not one of: " + list);
}

// `zero_refused`: why 0 is refused, for a positive key where 0 might be taken for "no limit".
inline void check_positive(TableReader& r, std::string_view key, double value, bool allow_zero = false,
                           const char* zero_refused = nullptr) {
  if (value > 0 || (allow_zero && value == 0)) return;
  const toml::node* n = r.table().get(key);
  std::string message = std::string("must be ") + (allow_zero ? "zero or more" : "greater than zero");
  if (value == 0 && zero_refused) message += std::string(": ") + zero_refused;
  r.diag().error(n ? n->source() : r.table().source(), r.field(key), message);
}

}  // namespace kb::config
