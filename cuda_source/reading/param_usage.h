// How a function's body uses its parameters, read from its tokens (not parsed): what `init`
// needs to tell a size from a plain integer and a device buffer from host memory.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// The integer parameters of a kernel that bound something in `body` (its text): compared with
// `<`, `<=`, `>` or `>=` to something other than a number literal (`i < n`,
// `for (k = 0; k < K; ++k)`, `if (i >= n) return;`; not `mode > 0`) or used in a subscript
// (`x[r * ld + c]`). Such a parameter is an extent of the data, not a tuning value.
std::set<std::string> bounding_params(const std::string& body, const std::vector<ScannedParam>& params);

// The pointer parameters that a host function (text[begin, end): its definition) uses as host
// memory: the source of a host-to-device copy, the destination of a device-to-host one, or
// dereferenced on the host (`*p`, `p[i]`, `p->f`; `&p[i]` is address arithmetic and does not
// count). Each with how it is used and the line: "the source of cudaMemcpy(..., cudaMemcpyHostToDevice) at line 12".
std::map<std::string, std::string> host_used_pointers(const std::string& text, size_t begin, size_t end,
                                                      const std::vector<ScannedParam>& params);

// The pointer parameters a host function (text[begin, end): its definition) sets on the device by
// itself: the destination of a cudaMemset(Async) or cudaMemcpy(Async). name -> the byte offset of
// the first.
// What a kernel then reads of it is what the function wrote, not what the caller passed.
std::map<std::string, size_t> device_set_pointers(const std::string& text, size_t begin, size_t end,
                                                  const std::vector<ScannedParam>& params);

}  // namespace kb::cuda_source
