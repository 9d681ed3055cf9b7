#include "bot/checks/scanned_sources.h"

#include <algorithm>

#include "common/file_io.h"
#include "core/errors.h"

namespace kb::bot {

namespace {

using cuda_source::ScannedLauncher;

// A kernel, for the lookup and argument checks a launcher gets (a kernel target's args are its parameters).
ScannedLauncher as_function(const cuda_source::ScannedKernel& kernel) {
  ScannedLauncher f;
  f.name = kernel.name;
  f.file = kernel.file;
  f.line = kernel.line;
  f.return_type = "void";
  f.params = kernel.params;
  f.begin = kernel.begin;  // the body's byte range: config check reads how it uses its buffers
  f.end = kernel.end;
  return f;
}

bool names_launcher(const std::string& wanted, const std::string& found) {
  return found == wanted || (found.size() > wanted.size() && found.ends_with("::" + wanted));
}

std::unordered_multimap<std::string, size_t> by_short_name(const std::vector<ScannedLauncher>& pool) {
  std::unordered_multimap<std::string, size_t> index;
  index.reserve(pool.size());
  for (size_t i = 0; i < pool.size(); ++i) index.emplace(cuda_source::unqualified_name(pool[i].name), i);
  return index;
}

}  // namespace

std::vector<const ScannedLauncher*> ScannedSources::named(const std::string& wanted, bool kernels_only) const {
  const auto& pool = kernels_only ? kernels : scan.functions;
  const auto& index = kernels_only ? kernels_by_short_name : functions_by_short_name;
  // Anything named `wanted` or `...::wanted` has wanted's last part as its own.
  std::vector<size_t> at;
  for (auto [it, end] = index.equal_range(cuda_source::unqualified_name(wanted)); it != end; ++it)
    if (names_launcher(wanted, pool[it->second].name)) at.push_back(it->second);
  std::sort(at.begin(), at.end());
  std::vector<const ScannedLauncher*> found;
  for (size_t i : at) found.push_back(&pool[i]);
  return found;
}

const ScannedLauncher* ScannedSources::launcher_of(const ScannedLauncher& function) const {
  for (auto [it, end] = launchers_by_name.equal_range(function.name); it != end; ++it) {
    const ScannedLauncher& l = scan.launchers[it->second];
    if (l.file == function.file && l.line == function.line) return &l;
  }
  return nullptr;
}

const ScannedSources& ScannedSourceCache::scanned(const std::vector<std::string>& files) {
  if (auto it = scans_.find(files); it != scans_.end()) return it->second;
  ScannedSources& s = scans_[files];
  for (size_t i = 0; i < files.size(); ++i) {
    std::optional<std::string> text;
    try {
      text = try_read_text_file(config_.resolve(files[i]));
    } catch (const Error& e) {  // a directory, a FIFO, no permission: say so, not "no function"
      s.read_error = e.what();
      s.unreadable_file = i;
      return s;
    }
    if (!text) continue;
    cuda_source::scan_source(*text, files[i], s.scan);
    s.texts.emplace(files[i], std::move(*text));
  }
  for (const auto& kernel : s.scan.kernels)
    if (kernel.is_definition) s.kernels.push_back(as_function(kernel));
  s.functions_by_short_name = by_short_name(s.scan.functions);
  s.kernels_by_short_name = by_short_name(s.kernels);
  for (size_t i = 0; i < s.scan.launchers.size(); ++i) s.launchers_by_name.emplace(s.scan.launchers[i].name, i);
  return s;
}

const cuda_source::TypeAliases& ScannedSourceCache::aliases(const std::string& source,
                                                            const std::vector<std::string>& include_dirs) {
  auto key = std::make_pair(source, include_dirs);
  if (auto it = aliases_.find(key); it != aliases_.end()) return it->second;
  return aliases_[key] = cuda_source::collect_type_aliases(config_.root, source, include_dirs);
}

}  // namespace kb::bot
