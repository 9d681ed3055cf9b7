// Whether a spliced CUDA file is valid C++: the host compiler (the one that builds kernelbot)
// checks its syntax and names with CUDA's keywords, types and headers stubbed and its <<<...>>>
// launch configurations removed. What a splice can get wrong (a name used before it is declared,
// a helper outside the namespace that uses it, a definition carried twice) is a C++ error.
#pragma once

#include <string>

namespace kb::testing {

// The compiler's errors; empty when the text compiles.
std::string host_syntax_errors(const std::string& cuda_text);

}  // namespace kb::testing
