// A kernel's launches as the source writes them, for `init`'s kernel targets: the literal template
// arguments the kernel is instantiated with (`gemm<16><<<...>>>`, `kernel = gemm<32>;`) and the
// components of a dim3 grid or block (`dim3 block(16, 16); dim3 grid((N + 15) / 16, (M + 15) / 16);`),
// so that a 2-D launch is written 2-D and a templated one with the values the code uses.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kb::cuda_source {

// The distinct template argument lists written after `kernel` in `text` ("16", "float, 4"), in
// order of appearance, where every argument is a literal (a number, true/false, or a built-in type
// name): what a harness can instantiate without the launcher's names. The kernel's own template
// header is not a use.
std::vector<std::string> literal_template_arguments(const std::string& text, const std::string& kernel);

// The components of the grid or block `part` (as written between <<< and >>>) of the launch at
// byte offset `site` of `text`: the arguments of an inline `dim3(...)`, of the nearest `dim3 part(...)`
// (or `{...}`, `= dim3(...)`) written before the site, or `part` itself when it is no dim3.
// Nothing when `part` names a dim3 the text does not define.
std::optional<std::vector<std::string>> dim3_components(const std::string& text, size_t site, const std::string& part);

// A grid component that rounds a count up to whole blocks (`(N + 15) / 16`, `(N + 16 - 1) / 16`,
// `ceil_div(N, 16)`, `cdiv(N, BLOCK)`): the count and the divisor as written. Nothing for any other shape.
struct CeilDivision {
  std::string count, divisor;
};
std::optional<CeilDivision> ceil_division(const std::string& component);

}  // namespace kb::cuda_source
