// What a launcher's body and the kernels it launches say about its parameters, beyond their C++
// types: what `init` reads to guess roles (bot/starter_config.h). Each fact comes with where it
// was seen, for the `# check:` note that goes with the guess.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "cuda_source/source_scanner.h"

namespace kb::bot {

struct ParamEvidence {
  // Non-const pointer parameters that every kernel they are passed to declares const: inputs.
  // name -> "kernel(const float* x)".
  std::map<std::string, std::string> const_in_kernel;
  // Integer parameters passed to a kernel parameter that bounds a loop or an index there: sizes.
  // name -> "kernel: n".
  std::map<std::string, std::string> bounds_in_kernel;
  // Pointer parameters the launcher uses as host memory. name -> how and where.
  std::map<std::string, std::string> host_pointers;
};

// `text_of(file)` gives a scanned file's text (the launcher's and the kernels' bodies are read
// from it by byte range).
ParamEvidence read_param_evidence(const cuda_source::ScannedLauncher& launcher, const cuda_source::ScanResult& scan,
                                  const std::function<const std::string&(const std::string&)>& text_of);

// Names of buffers a kernel writes without them being results: scratch space, partial sums,
// flags, locks and counters ("workspace", "d_tmp", "partial_sums", "block_flags").
bool workspace_like(const std::string& name);

}  // namespace kb::bot
