// How a variant library's one-time setup (kb_setup, core/setup_contract.h) ended, in words the
// judge passes on. Host-only, unit-tested without a GPU.
#pragma once

#include <string>

namespace kb::judge {

// "" when the setup succeeded (returned 0, no CUDA error pending); else the failure, e.g.
// "kb_setup() returned 3 (the setup source's one-time setup failed)".
std::string setup_failure_text(int returned, const std::string& cuda_error);

}  // namespace kb::judge
