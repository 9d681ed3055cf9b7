// Sentences that point at the fix for an original that does not compile or load as kernelbot
// builds it (`check --compile`), where nvcc's own message points elsewhere:
//  - a header of the repository that is not self-contained (it uses a type or name that the
//    program's other sources declare before including it): the prelude;
//  - a file nvcc could not open that the repository has (nvcc runs in the compile cache): paths;
//  - "multiple definition of X" at the link: what two units define it;
//  - an undefined symbol at load: the repository's definition of it (symbol_origin.h), or the
//    setup source's kb_setup.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/config.h"

namespace kb::bot {

// The hints for a failed compile's log (its names already the repository's), each one sentence.
std::vector<std::string> compile_error_hints(const std::string& log, const config::Config& config);

// The hint for a library that did not load for want of `symbol` (demangled); "" when there is
// nothing better to say than the provider search's.
std::string undefined_symbol_hint(const std::string& symbol, const config::Config& config,
                                  const config::KernelSpec& spec);

// The repository header that declares `name` (a typedef, using, struct/class/enum or #define of
// it), relative to the root; "" when none does.
std::string header_declaring(const std::string& name, const std::filesystem::path& root,
                             const std::vector<std::string>& exclude);

}  // namespace kb::bot
