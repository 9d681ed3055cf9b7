// What a user reads when a kernel's original source does not compile as kernelbot builds it, in
// every command that compiles it (profile, eval, search, run, check --compile): nvcc's messages
// naming the repository's file instead of the compile cache's copy, and the hints that point at
// the fix where nvcc's words point elsewhere (compile_hints.h).
#pragma once

#include <string>

#include "config/config.h"

namespace kb::bot {

// nvcc compiles a copy of the kernel's source (<cache>/build-*/variant.cu): its messages name the
// copy, as "variant.cu(12)" (cudafe) or "variant.cu:12:5" (the host compiler). The reader wants
// the repository's file: `source`, with the line.
std::string with_source_names(const std::string& log, const std::string& source);

// "the original of kernel 'K' (FILE) does not compile as kernelbot builds it:", the end of the
// compiler's log with the repository's names, then a "hint: " line for each hint.
std::string original_compile_failure(const config::Config& config, const config::KernelSpec& spec,
                                     const std::string& log);

}  // namespace kb::bot
