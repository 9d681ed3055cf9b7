#include "bot/commands/publish/base_check.h"
#include "common/file_io.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "bot/forge/git_repo.h"

namespace kb::bot {

std::optional<std::string> original_differs_from_base(const config::Config& config, const config::KernelSpec& spec,
                                                      const search::SearchResult& result) {
  if (result.tree.empty() || result.tree.front().variant.source.empty())
    return "the result carries no original source to compare with the base branch";
  const std::string& measured = result.tree.front().variant.source;
  const auto file = config.resolve(spec.source);
  std::optional<std::string> current;
  std::string where;
  if (auto repo = GitRepo::discover(config.root)) {
    auto path = std::filesystem::relative(std::filesystem::weakly_canonical(file),
                                          std::filesystem::weakly_canonical(repo->workdir()))
                    .generic_string();
    current = repo->file_at(config.github.base_branch, path);
    where = fmt::format("{} on {}", path, repo->resolve_base(config.github.base_branch));
  } else {
    if (std::optional<std::string> text = try_read_text_file(file)) current = std::move(*text);
    where = file.string() + " (no git repository: the working tree)";
  }
  if (!current) return fmt::format("not published: {} does not exist", where);
  if (*current != measured)
    return fmt::format("not published: {} is no longer the original this result measured (the base branch moved on "
                       "since the search); the next sweep searches the new code",
                       where);
  return std::nullopt;
}

}  // namespace kb::bot
