// What a table `init` writes needs besides its source file, read before any compile: the other
// files of the repository that define what the source (and the repository headers it includes)
// declares and uses but does not define, written as `extra_sources`; and the program globals the
// harness leaves unset, for a setup source stub (`kb_setup()`, TODO where a value is needed):
// globals defined beside a main() (that file, a program, cannot be an extra source) and, for a
// kernel target, the __device__/__constant__ variables its kernel reads, which main() sets.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {

// A declared name and where the repository defines it.
struct NeededDefinition {
  std::string name;
  std::string file;  // relative to the root
  int line = 0;
  std::string text;  // the defining statement's first line, as written (for the setup stub)
};

// A __device__/__constant__ variable of the kernel's file that the kernel reads.
struct DeviceGlobal {
  std::string name;
  std::string declaration;  // "__constant__ float coeffs[16];"
  int line = 0;
  std::vector<std::string> set_at;  // "src/conv.cu:40: cudaMemcpyToSymbol(coeffs, h, sizeof h);"
};

struct SourceNeeds {
  std::vector<std::string> extra_sources;            // files, relative to the root, in the order found
  std::vector<NeededDefinition> from_extra_sources;  // why each is there
  std::vector<NeededDefinition> program_globals;     // defined beside a main(): for the setup source
  std::vector<DeviceGlobal> device_globals;          // read by the kernel (kernel targets only)
  bool needs_setup() const { return !program_globals.empty() || !device_globals.empty(); }
};

using SourceTextOf = std::function<const std::string&(const std::string& file)>;

// What `file` (relative to `root`) needs; `kernel`, for a kernel target, is its __global__, whose
// body is searched for device globals. `files` are the scanned files; `include_dirs` resolve its
// quoted includes.
SourceNeeds source_needs(const std::string& file, const cuda_source::ScannedKernel* kernel,
                         const std::filesystem::path& root, const std::vector<std::string>& files,
                         const std::vector<std::string>& include_dirs, const SourceTextOf& text_of);

// The text of the setup source stub for the table `name` (whose source is `source`).
std::string setup_stub(const std::string& name, const std::string& source, const cuda_source::ScannedKernel* kernel,
                       const SourceNeeds& needs);

}  // namespace kb::bot
