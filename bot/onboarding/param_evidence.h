// What a launcher's body and the kernels it launches say about its parameters, beyond their C++
// types: what `init` reads to guess roles (bot/commands/init/starter_config.h). Each fact comes with where it
// was seen, for the `# check:` note that goes with the guess.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/arg_types.h"
#include "cuda_source/reading/buffer_uses.h"
#include "cuda_source/tokens/source_scanner.h"

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
  // Pointer parameters passed to a kernel whose body could be read: how the kernels (and the
  // helpers they call) use the memory, merged over the launches in order.
  std::map<std::string, cuda_source::BufferUses> uses;
  // Pointer parameters the launcher sets itself (cudaMemset, cudaMemcpy into it) on a line before
  // every launch it is passed to: an output whatever the kernels do with it. name -> where.
  std::map<std::string, cuda_source::BufferAccess> set_by_launcher;
};

// The role the uses decide (read only: input, written only: output, both: inout) and the note that
// says why ("read and written: line 42 `C[i] = a * s + b * C[i]`"; a line of another file than
// `table_file` is named with its file). Nothing when the uses do not decide: the buffer is passed
// where the analysis cannot follow it, or is neither read nor written; `why_not` then says so.
struct RoleFromUses {
  std::optional<ArgRole> role;
  std::string note;
  std::string why_not;
};
RoleFromUses role_from_uses(const cuda_source::BufferUses& uses, const std::string& table_file);

// `text_of(file)` gives a scanned file's text (the launcher's and the kernels' bodies are read
// from it by byte range).
ParamEvidence read_param_evidence(const cuda_source::ScannedLauncher& launcher, const cuda_source::ScanResult& scan,
                                  const std::function<const std::string&(const std::string&)>& text_of);

// Names of buffers a kernel writes without them being results: scratch space, partial sums,
// flags, locks and counters ("workspace", "d_tmp", "partial_sums", "block_flags").
bool workspace_like(const std::string& name);

}  // namespace kb::bot
