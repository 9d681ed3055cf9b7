// Renders the pull request body (markdown) from a search result: verdict, timing table per size,
// correctness evidence, hardware profile before and after, the path of ideas, how to reproduce.
// Only measured fields are printed; what was not collected says so.
#pragma once

#include <string>

#include "bot/source_splicer.h"
#include "search/search_types.h"

namespace kb::bot {

struct PrContext {
  std::string kernel;
  std::string source_path;     // the changed file, relative to the repository root
  std::string candidate_path;  // the saved winner, for the reproduce command
  std::string kernelbot_version;
  std::string sandbox = "namespaces";  // [verify].sandbox the candidates ran in: a reviewer's trust depends on it
};

// The PR title: "kernelbot: saxpy 4.49x faster".
std::string render_pr_title(const search::SearchResult& result);

// The body. Throws std::invalid_argument when the result has no winner.
std::string render_pr_body(const search::SearchResult& result, const SourceChange& change, const PrContext& context);

}  // namespace kb::bot
