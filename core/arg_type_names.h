// The spellings of ArgRole and DType (core/arg_types.h): the config's TOML, the HarnessJob's JSON,
// messages and generated code all use these, so a role or dtype is named the same everywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/arg_types.h"

namespace kb {

const char* to_string(ArgRole role);
const char* to_string(DType dtype);
std::optional<ArgRole> parse_arg_role(const std::string& text);
std::optional<DType> parse_dtype(const std::string& text);

// Every spelling, in enum order (for "one of: ..." messages and the config's checks).
const std::vector<const char*>& arg_role_names();
const std::vector<const char*>& dtype_names();

// The C++ type a launcher parameter of this dtype has (for generated code and docs).
const char* dtype_cpp_type(DType dtype);

}  // namespace kb
