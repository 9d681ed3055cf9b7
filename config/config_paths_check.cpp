#include "config/config_paths_check.h"

#include <filesystem>

#include "common/path_containment.h"

namespace kb::config {

// A file the config names (a prelude header, a setup source) that is not there is the field's
// error, reported at the value; `config check` and every command that loads the config agree.
void check_file_exists(TableReader& r, const Config& c, const char* key, const std::string& path, const toml::node* at,
                       const std::string& field) {
  if (path.empty() || c.root.empty() || std::filesystem::exists(c.resolve(path))) return;
  r.diag().error(at ? at->source() : r.table().source(), field,
                 "file not found: " + c.resolve(path).string() + " (" + key +
                     " paths are relative to the directory of kernelbot.toml)");
}

// Sources that resolve outside the repository (`../x.cu`, a symlink out of it) are read, compiled
// and put in PRs as the repository's own: an error unless [project] sources_outside_root says so.
void check_sources_inside_root(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                               const toml::node* at) {
  if (c.root.empty() || c.project.sources_outside_root) return;
  const std::filesystem::path repository = repository_root_of(c.root, std::filesystem::current_path());
  const toml::array* items = at ? at->as_array() : nullptr;
  for (size_t i = 0; i < paths.size(); ++i)
    if (!resolves_inside(repository, c.resolve(paths[i])))
      r.diag().error(items && i < items->size() ? items->get(i)->source() : (at ? at->source() : r.table().source()),
                     r.field(key) + (items ? "[" + std::to_string(i) + "]" : ""),
                     "\"" + paths[i] + "\" resolves outside the repository (" +
                         std::filesystem::weakly_canonical(c.resolve(paths[i])).string() +
                         "); set [project] sources_outside_root = true if that is meant");
}

// A directory the config names (an include directory) that is not there.
void check_directory_exists(TableReader& r, const Config& c, const char* key, const std::string& path,
                            const toml::node* at, const std::string& field) {
  if (path.empty() || c.root.empty() || std::filesystem::is_directory(c.resolve(path))) return;
  r.diag().error(at ? at->source() : r.table().source(), field,
                 (std::filesystem::exists(c.resolve(path)) ? "not a directory: " : "directory not found: ") +
                     c.resolve(path).string() + " (" + key + " paths are relative to the directory of kernelbot.toml)");
}

// Each item of a list of paths (include_dirs, extra_sources, prelude) at its own position.
void check_path_list(TableReader& r, const Config& c, const char* key, const std::vector<std::string>& paths,
                     bool directories) {
  const toml::node* n = r.table().get(key);
  const toml::array* items = n ? n->as_array() : nullptr;
  for (size_t i = 0; items && i < paths.size() && i < items->size(); ++i) {
    const std::string field = r.field(key) + "[" + std::to_string(i) + "]";
    if (directories) check_directory_exists(r, c, key, paths[i], items->get(i), field);
    else check_file_exists(r, c, key, paths[i], items->get(i), field);
  }
}

}  // namespace kb::config
