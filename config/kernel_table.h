// One [[kernel]] table: its keys, [[kernel.arg]] tables, size sets, size rules and tunables, and
// the rules across them (every size an argument uses defined, an output argument, the launch of a
// kernel target), each reported at its own position (internal to config/).
#pragma once

#include "config/toml_table_reader.h"

namespace kb::config {

void read_kernel(TableReader& r, KernelSpec& k, const Config& config);

}  // namespace kb::config
