// Generates the entry shim that turns a variant's translation unit into a loadable library: it
// #includes the variant's source and defines `extern "C" int kb_launch(void** a)`, which unpacks
// one pointer per launcher parameter and calls the spec's launcher.
#pragma once

#include <string>

#include "config/config.h"

namespace kb::profiler {

// The shim's source text. `variant_include` is what the shim #includes (an absolute path to the
// variant's source written to disk). Buffers are passed as non-const `T*` (a `const T*` parameter
// accepts them too); scalars and sizes as `*static_cast<T*>(a[i])`; a stream argument as
// `*static_cast<cudaStream_t*>(a[i])`, the stream the variant server created for the launcher.
// Qualified launcher names (`ops::launch_saxpy`) work as written in the spec. A kernel target
// (`global`) gets global_launch_entry()'s kb_launch instead, whose block may follow the launch
// site written in `variant_source`, the variant's text (global_launch.h).
std::string generate_entry_shim(const config::KernelSpec& spec, const std::string& variant_include,
                                const std::string& variant_source = "");

}  // namespace kb::profiler
