// The part of a CUDA file that a model needs in order to rewrite one launcher: the launcher's
// definitions, the kernels it launches, and what they read from the rest of the file (its
// includes; the macros, types, constants and helper functions they name, and what those name in
// turn; the conditional blocks and namespaces around them), in the file's order. When a file is
// too long for the model's context, its prompts show this instead of the whole file, and the
// reply is spliced back into the file (definition_splice.h).
#pragma once

#include <optional>
#include <string>

namespace kb::cuda_source {

// Nothing when the file has no definition of `launcher` (possibly qualified) that launches a
// kernel. Unrelated kernels, launchers and helpers are left out; a comment directly above a
// definition that is shown is shown with it.
std::optional<std::string> launcher_excerpt(const std::string& text, const std::string& launcher,
                                            const std::string& path);

}  // namespace kb::cuda_source
