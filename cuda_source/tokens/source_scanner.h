// Finds __global__ kernels and the host functions that launch them (<<<...>>> sites) in CUDA
// sources. Not a C++ parser: a tokenizer that understands comments, strings, preprocessor lines,
// templates and balanced brackets well enough to read real code without crashing, and that says
// what it could not read instead of guessing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kb::cuda_source {

struct ScannedParam {
  std::string type;           // as written, whitespace collapsed: "const float *"
  std::string name;           // may be empty for unnamed parameters
  std::string default_value;  // the default argument as written ("0", "256"); empty when none
  int line = 0;               // where the parameter is written (0 from split_params)
};

struct ScannedKernel {
  std::string name;
  std::string file;
  int line = 0;
  std::vector<ScannedParam> params;
  std::string template_params;  // "typename T, int BLOCK" or empty
  bool is_definition = false;   // false: only a declaration
  // Byte offsets in the file's text: from the first token of the declaration (its template
  // header and qualifiers included, comments above it not) to one past its closing '}' (or ';').
  size_t begin = 0, end = 0;
};

struct ScannedLaunch {
  std::string kernel;         // the launched kernel, template arguments stripped
  std::string launch_config;  // what stands between <<< and >>>; empty for a runtime API launch
  // The same, split at its top-level commas: grid, block, and shared memory / stream if given.
  // For cudaLaunchKernel and cudaLaunchCooperativeKernel their grid, block, shared memory and
  // stream arguments; empty for cudaLaunchKernelEx(C), whose config struct holds them.
  std::vector<std::string> config_parts;
  // The kernel's arguments as written in the call after >>>, split at top-level commas (for an
  // API launch: its trailing arguments, or the elements of the `void* args[] = {&a, ...}` passed).
  std::vector<std::string> arguments;
  std::string file;
  int line = 0;

  // The launch as the launcher reaches it, when the site does not simply name the kernel:
  // The host function whose body holds the site ("detail::launch_tiled"), when the launcher
  // launches through a call of it (or of a helper that calls it); empty when the site is in the
  // launcher's own body or in a lambda there. Its grid, block and arguments are then the helper's
  // names, not the launcher's.
  std::string via{};
  // The function pointer the site launches (a local, a table's name, a parameter), when `kernel`
  // is one of the kernels it can hold: one launch per such kernel, all of the same site. When no
  // kernel it holds could be read, `kernel` is the variable's name.
  std::string variable{};
  // The names assigned to `variable` in its function ("big_kernel", "small_kernel"), among which
  // the kernels are found once every file is scanned.
  std::vector<std::string> assigned{};
  // The runtime API function of the launch ("cudaLaunchKernel", "cudaLaunchKernelEx"); empty for <<<>>>.
  std::string api{};

  // `kernel<<<...>>>` naming this very kernel in the launcher's own text: only then may a tool
  // read the launch's block for this kernel or rewrite the site (block literals, launch bounds).
  bool edits_in_place() const { return via.empty() && variable.empty() && api.empty(); }
  // The grid, block and arguments are written in the launcher's own scope, with its names.
  bool in_launcher_scope() const { return via.empty(); }
};

// A call in a function's body of a function named there (method calls on an object left out):
// what launches through host helpers are followed by.
struct ScannedCall {
  std::string callee;  // as written, template arguments stripped: "detail::launch_tiled"
  std::vector<std::string> arguments;
  int line = 0;
};

// A host (or device) function that contains at least one launch site, or that calls one that
// launches (cuda_source/tokens/helper_launches.h): its launches then include the helper's, marked `via`.
struct ScannedLauncher {
  std::string name;  // qualified with the enclosing namespaces/classes: "ops::launch_saxpy"
  std::string file;
  int line = 0;
  std::string return_type;
  std::vector<ScannedParam> params;
  std::vector<ScannedLaunch> launches;
  bool is_kernel = false;            // a __global__ function launching others (dynamic parallelism)
  size_t begin = 0, end = 0;         // byte offsets of the definition, as for ScannedKernel
  std::vector<ScannedCall> calls{};  // in the body, lambdas included, in order
};

// Something the scanner saw but did not read, so the user knows what is missing from the list.
struct ScanNote {
  std::string file;
  int line = 0;
  std::string message;
};

struct ScanResult {
  std::vector<ScannedKernel> kernels;
  std::vector<ScannedLauncher> launchers;
  // Every function defined at namespace or class scope, launching or not (launches left empty):
  // what `config check` looks a configured launcher up in, wrappers that call a launcher included.
  std::vector<ScannedLauncher> functions;
  std::vector<ScanNote> skipped;
  std::vector<std::string> files;  // every file read
  // Indices into `kernels` of the definitions, by name as scanned; rebuilt after every scan
  // (resolve_launches), so a lookup per launch costs no pass over every kernel.
  std::unordered_multimap<std::string, size_t> definitions_by_name = {};
  // Indices into `functions`, by unqualified name, rebuilt alike: a kernel body's calls to helpers
  // are looked up through it (buffer_uses.h), not through every function of the file.
  std::unordered_multimap<std::string, size_t> functions_by_short_name = {};
};

// The first definition (in scan order) of the kernel named `name` exactly, taking `arity`
// parameters when given; nullptr when there is none.
const ScannedKernel* kernel_definition(const ScanResult& scan, const std::string& name,
                                       std::optional<size_t> arity = std::nullopt);

// A top-level piece of a file, for tools that edit sources (the PR splicer): a preprocessor
// directive (continuation lines included) or one declaration/definition at file scope (a
// namespace or extern "C" block is one piece).
struct SourceChunk {
  enum Kind { directive, declaration } kind = declaration;
  size_t begin = 0, end = 0;  // byte offsets; `end` is one past the last character (no newline)
  int line = 0;
};

// The file's top-level pieces in order. Comments and blank lines belong to no piece.
std::vector<SourceChunk> top_level_chunks(const std::string& text);

// Every preprocessor directive of the file in order, those inside function bodies (#pragma
// unroll) included, none inside comments: what cuda_source/tokens/preprocessor_directives.h reads.
std::vector<SourceChunk> directive_chunks(const std::string& text);

// Scans one file's text (the name is used in results).
void scan_source(const std::string& text, const std::string& file_name, ScanResult& result);

// Scans every .cu/.cuh file under `root`, skipping directories whose name is in `exclude`.
// File names in the result are relative to `root`.
ScanResult scan_tree(const std::filesystem::path& root, const std::vector<std::string>& exclude);

// How many arguments a call of `launcher` must pass: its parameters up to the trailing ones
// that have a default argument.
size_t required_params(const ScannedLauncher& launcher);

// "ops::launch_saxpy" -> "launch_saxpy": the name without the namespaces and classes the
// scanner qualifies it with (a spec's launcher may be written either way).
std::string unqualified_name(const std::string& name);

// "float* x, int n" -> {{"float *","x"},{"int","n"}}; exposed for tests.
std::vector<ScannedParam> split_params(const std::string& text);

}  // namespace kb::cuda_source
