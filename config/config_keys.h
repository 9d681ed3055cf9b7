// The key table: every key of the fixed sections ([llm] ... [project]) listed once, with where it
// lives in Config, its simple rule and a one-line description. The loader, `config show`, the
// starter file of `kernelbot init` and the consistency test are all driven from it, so adding a
// key is one struct field plus one line here (and a row in docs/configuration.md). Defaults are not repeated: each
// entry points at its field, and the field's in-class default is the default.
// [[kernel]] tables stay hand-read in config_loader.cpp: they carry positions and cross-field rules.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "config/config.h"

namespace kb::config {

// A typed pointer to one field of a Config; the alternative held is the key's TOML type.
using FieldRef = std::variant<std::string*, int64_t*, double*, bool*, std::vector<std::string>*,
                              std::map<std::string, Tolerance>*, std::map<std::string, std::string>*, JsonTable*>;

enum class Bound { any, positive, zero_or_more };  // for integer and number keys

struct ConfigKey {
  const char* section;
  const char* name;
  FieldRef (*field)(Config&);
  const char* description;
  Bound bound = Bound::any;
  std::vector<const char*> allowed = {};  // a string (or each item of a list) must be one of these
  // A positive key whose 0 someone may mean as "no limit" (a budget): what 0 would be instead,
  // added to the error so that it says why 0 is refused.
  const char* zero_refused = nullptr;
};

const std::vector<ConfigKey>& config_keys();
// The sections the table covers, in file order.
const std::vector<std::string>& config_sections();

}  // namespace kb::config
