// `config check`'s warning for an argument configured as an output that the code reads before it
// writes it: the judge fills outputs with poison before each call, so such a kernel computes from
// poison, the original's result is non-finite and the comparison proves nothing (`inout` gives it
// the values it reads). Read from the kernels' bodies as `init` reads roles (cuda_source/reading/buffer_uses.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/config.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

struct OutputReadFirst {
  size_t arg = 0;       // index into the spec's args
  std::string message;  // "the kernel reads C before it writes it (line 42 `...`): ..."
};

// For a launcher target, `function` is the launcher as `scan` holds it (with its launches); for a
// kernel target, the __global__ function. `text_of(file)` gives a scanned file's text.
std::vector<OutputReadFirst> outputs_read_first(const config::KernelSpec& spec,
                                                const cuda_source::ScannedLauncher& function, bool is_global,
                                                const cuda_source::ScanResult& scan,
                                                const std::function<const std::string&(const std::string&)>& text_of);

}  // namespace kb::bot
