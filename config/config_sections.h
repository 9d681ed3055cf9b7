// The fixed sections of kernelbot.toml ([llm], [search], [verify], [bench], [github], [project]),
// read by the key table (config_keys.h) with their per-key rules and the rules over several keys,
// and the tolerance tables that [verify] and [[kernel]] share (internal to config/).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "config/toml_table_reader.h"

namespace kb::config {

// One section into `c`: every key (wrong types in table order), then unknown keys, then the
// per-key rules, then the section's own rules.
void read_section(TableReader& r, const std::string& section, Config& c);

// tolerance = { float32 = { rtol = ..., atol = ... } }: each dtype named, neither bound negative.
void read_tolerance_map(TableReader& parent, std::string_view key, std::map<std::string, Tolerance>& out);

}  // namespace kb::config
