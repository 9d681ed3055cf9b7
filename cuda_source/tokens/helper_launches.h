// Launches a function makes through something else than `kernel<<<...>>>` in its own body: a host
// helper (or helper template) that launches, called from it, its own helpers followed to a
// fixpoint; and a function pointer (a local, a table, a helper's parameter) that a site launches,
// resolved to the kernels it can hold. This runs once the files are scanned, since a helper or a
// kernel may be defined in another file than its caller.
#pragma once

#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// Resolves `result`'s launches in place: a launch of a function pointer becomes one launch per
// kernel it can hold (same site, `variable` set), and every function that calls a launching
// helper becomes a launcher whose launches include the helper's, marked `via` the function whose
// body holds the site. A kernel passed to a helper's parameter is followed into the helper's
// launch. Idempotent: running it again (one more file scanned) recomputes from the sites.
void resolve_launches(ScanResult& result);

// The functions (indices into `functions`) that a call of `callee` (as written: "detail::f",
// "::f", "f") in the function `caller` (qualified) may reach: looked up outward from the
// caller's namespaces and classes, as C++ does, then anywhere a function of that qualified name
// ends the same way (a using-directive, another file). Overloads all count; kernels never do.
std::vector<size_t> called_functions(const std::vector<ScannedLauncher>& functions, const std::string& caller,
                                     const std::string& callee);

}  // namespace kb::cuda_source
