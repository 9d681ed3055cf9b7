#include "bot/change/result_store.h"
#include "common/file_io.h"
#include "common/file_write.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"

namespace kb::bot {
// Every file here is written whole or not at all (common/file_write.h): a crash never leaves half
// a result where a complete one was.

std::filesystem::path results_directory(const std::filesystem::path& root, const std::string& kernel) {
  return root / ".kernelbot" / "results" / kernel;
}

SavedResult save_result(const std::filesystem::path& root, const search::SearchResult& result,
                        const SourceChange* change) {
  return save_result_in(results_directory(root, result.kernel), result, change);
}

SavedResult save_result_in(const std::filesystem::path& directory, const search::SearchResult& result,
                           const SourceChange* change) {
  SavedResult saved;
  saved.directory = directory;
  std::filesystem::create_directories(saved.directory);
  saved.result_json = saved.directory / "result.json";
  write_file_atomically(saved.result_json, nlohmann::json(result).dump(2) + "\n");
  const auto* best = result.best();
  if (!change && best && !best->variant.source.empty()) {
    // Before the splice: the winning translation unit as it was compiled, -D values written in,
    // so this file alone reproduces the winner even if turning it into an edit fails.
    std::string tu;
    for (const auto& d : best->variant.defines) {
      auto eq = d.find('=');
      tu += "#define " + d.substr(0, eq) + " " + (eq == std::string::npos ? "1" : d.substr(eq + 1)) +
            "  // kernelbot: the winner was compiled with -D" + d + "\n";
    }
    saved.candidate = saved.directory / "candidate.cu";
    write_file_atomically(saved.candidate, tu + best->variant.source);
  }
  if (change) {
    auto ext = std::filesystem::path(change->path).extension().string();
    saved.candidate = saved.directory / ("candidate" + (ext.empty() ? std::string(".cu") : ext));
    write_file_atomically(saved.candidate, change->updated);
    saved.patch = saved.directory / "change.patch";
    write_file_atomically(saved.patch, change->patch);
  }
  return saved;
}

search::SearchResult load_result(const std::filesystem::path& root, const std::string& kernel) {
  auto path = results_directory(root, kernel) / "result.json";
  if (!std::filesystem::exists(path))
    throw UsageError("no saved result for '" + kernel + "': " + path.string() +
                     " is missing (run `kernelbot run` or `kernelbot search` first)");
  return load_result_file(path);
}

search::SearchResult load_result_file(const std::filesystem::path& path) {
  const std::optional<std::string> text = try_read_text_file(path, kDataFileLimitBytes);
  if (!text) throw UsageError("cannot read " + path.string());
  try {
    return nlohmann::json::parse(*text).get<search::SearchResult>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not a kernelbot result: " + e.what());
  }
}

}  // namespace kb::bot
