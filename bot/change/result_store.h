// Saves a search's winner before anything that can fail (git, the network, the project's own
// build) is tried: <root>/.kernelbot/results/<kernel>/ gets result.json (the whole search),
// the winning translation unit and the change as a patch.
#pragma once

#include <filesystem>

#include "bot/change/source_splicer.h"
#include "search/types/search_types.h"

namespace kb::bot {

struct SavedResult {
  std::filesystem::path directory;
  std::filesystem::path result_json;
  std::filesystem::path candidate;  // the changed source file's full text: what `kernelbot eval` takes
  std::filesystem::path patch;
};

std::filesystem::path results_directory(const std::filesystem::path& root, const std::string& kernel);

// Writes result.json always. With `change`: candidate.<ext> (the changed file) and change.patch;
// without it, candidate.cu is the winner's translation unit as compiled (its -D values written in
// as #define lines), so a winner is reproducible even when splicing it into the source fails.
SavedResult save_result(const std::filesystem::path& root, const search::SearchResult& result,
                        const SourceChange* change);

// The same files in `directory` itself (a sweep shard's results/<kernel>/, uploaded as an artifact).
SavedResult save_result_in(const std::filesystem::path& directory, const search::SearchResult& result,
                           const SourceChange* change);

// Reads back result.json (for `kernelbot pr`). Throws kb::Error naming the file.
search::SearchResult load_result(const std::filesystem::path& root, const std::string& kernel);

// Reads a result.json at `path`. Throws kb::Error naming the file.
search::SearchResult load_result_file(const std::filesystem::path& path);

}  // namespace kb::bot
