// Before a sweep's result is published, possibly hours after it was measured on another machine:
// is the original it measured still what the base branch holds? A PR built on a different
// original would claim a speedup nobody measured, so such a kernel is refused with a note.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"
#include "search/types/search_types.h"

namespace kb::bot {

// nullopt when the result's original (its baseline record's source) is the text of the kernel's
// source file on [github].base_branch (read through libgit2; the working tree when `config.root`
// is in no repository); otherwise why the result must not be published.
std::optional<std::string> original_differs_from_base(const config::Config& config, const config::KernelSpec& spec,
                                                      const search::SearchResult& result);

}  // namespace kb::bot
