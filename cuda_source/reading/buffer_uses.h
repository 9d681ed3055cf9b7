// How a function's body uses the memory its pointer parameters point to: read, written, or both,
// read from its tokens (not parsed). What `init` writes as a buffer's role instead of a guess from
// constness (a non-const pointer the kernel only reads is an input; `C = alpha * acc + beta * C`
// makes C inout), and what `config check` reads to warn about an output the kernel reads before it
// writes it (the judge fills outputs with poison). Uses are followed through pointer arithmetic and
// local aliases (`float* row = C + i * n; row[j] = v`, `A += K`, `auto p = &C[i]; *p = v`), atomics
// (read and written), and calls of helpers the caller can show (the same file's __device__ functions).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// One access, for the note that goes with a role: "line 42 `C[idx] = alpha * acc + beta * C[idx]`".
struct BufferAccess {
  std::string file;  // the file of the function the access is in (a helper may live elsewhere)
  int line = 0;
  std::string excerpt;        // the line as written, trimmed, without its ';'
  std::string where() const;  // "line 42 `...`"
};

// The access at byte `pos` of `text` (the file `file`): its line, trimmed, as a note shows it.
BufferAccess access_at_offset(const std::string& text, const std::string& file, size_t pos);

struct BufferUses {
  std::optional<BufferAccess> first_read, first_write;
  // A statement that both reads and writes it (`x[i] += v`, `C[i] = a * s + b * C[i]`), when one does.
  std::optional<BufferAccess> read_and_written;
  // The first access in the order the body runs it on one thread, as far as the text tells (the
  // right-hand side of `=` before its target), is a read.
  bool read_before_written = false;
  // Passed where the analysis cannot follow it: "passed to cublasSgemm() at line 12".
  std::optional<std::string> unseen;

  bool read() const { return first_read.has_value(); }
  bool written() const { return first_write.has_value(); }
};

// A function the analysis may follow a pointer into: its definition is text[begin, end).
struct FunctionText {
  const std::string* text = nullptr;
  std::string file;
  size_t begin = 0, end = 0;
  std::vector<ScannedParam> params;
};

// The function called `name` with `arity` arguments from a function of `file`, whose body can be
// read, or nothing.
using FunctionLookup =
    std::function<std::optional<FunctionText>(const std::string& name, size_t arity, const std::string& file)>;

// The uses of each named pointer parameter of `function`, helpers followed through `lookup` (at most
// a few calls deep).
std::map<std::string, BufferUses> buffer_uses(const FunctionText& function, const FunctionLookup& lookup = {});

// A lookup of the __device__ (and host-device) functions `scan` found, by name and arity (one in
// the caller's own file first), whose text `text_of(file)` gives.
FunctionLookup scanned_function_lookup(const ScanResult& scan,
                                       const std::function<const std::string&(const std::string&)>& text_of);

// Merges `more` (a later use, another kernel's or a helper's) into `into`.
void merge_uses(BufferUses& into, const BufferUses& more);

}  // namespace kb::cuda_source
