// Saves a search's winner before anything that can fail (git, the network, the project's own
// build) is tried: <root>/.kernelbot/results/<kernel>/ gets result.json (the whole search),
// the winning translation unit and the change as a patch.
#pragma once

#include <filesystem>

#include "bot/source_splicer.h"
#include "search/search_types.h"

namespace kb::bot {

struct SavedResult {
  std::filesystem::path directory;
  std::filesystem::path result_json;
  std::filesystem::path candidate;  // the changed source file's full text: what `kernelbot eval` takes
  std::filesystem::path patch;
};

std::filesystem::path results_directory(const std::filesystem::path& root, const std::string& kernel);

// Writes result.json always; the candidate and the patch when `change` is given.
SavedResult save_result(const std::filesystem::path& root, const search::SearchResult& result,
                        const SourceChange* change);

// Reads back result.json (for `kernelbot pr`). Throws std::runtime_error naming the file.
search::SearchResult load_result(const std::filesystem::path& root, const std::string& kernel);

}  // namespace kb::bot
