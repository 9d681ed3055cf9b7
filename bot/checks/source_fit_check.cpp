#include "bot/checks/source_fit_check.h"

#include <set>

#include "bot/checks/launch_names_check.h"
#include "common/file_io.h"
#include "config/kernel_target.h"
#include "cuda_source/reading/include_dirs_guess.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::bot {
namespace {

namespace fs = std::filesystem;
using config::KernelSpec;

// Bounds the walk through a repository's headers: a tunable lives in the kernel's own file or a
// header near it, never hundreds of includes away.
constexpr size_t kMostFilesRead = 200;

// The text of the kernel's source, the repository headers it includes (quoted includes that
// resolve, transitively) and its extra_sources.
std::vector<std::string> texts_seen_by(const config::Config& config, const KernelSpec& k) {
  std::vector<std::string> dirs = config.project.include_dirs;
  dirs.insert(dirs.end(), k.include_dirs.begin(), k.include_dirs.end());
  std::vector<fs::path> pending = {config.resolve(k.source)};
  for (const auto& extra : config.project.extra_sources) pending.push_back(config.resolve(extra));
  for (const auto& extra : k.extra_sources) pending.push_back(config.resolve(extra));
  std::set<fs::path> seen;
  std::vector<std::string> texts;
  while (!pending.empty() && seen.size() < kMostFilesRead) {
    const fs::path file = pending.back().lexically_normal();
    pending.pop_back();
    if (!seen.insert(file).second) continue;
    // Only a hint: a source that cannot be read is its own field's error (the launcher check).
    const auto text = read_text_file_if_readable(file);
    if (!text) continue;
    for (const auto& d : cuda_source::read_directives(*text))
      if (const std::string included = cuda_source::quoted_include(*text, d); !included.empty())
        if (auto found = cuda_source::resolve_quoted_include(config.root, file, included, dirs))
          pending.push_back(*found);
    texts.push_back(*text);
  }
  return texts;
}

void check_tunables(const config::Config& config, const KernelSpec& k, const std::string& field,
                    LauncherFindings& out) {
  if (k.tunables.empty()) return;
  // An unreadable source is reported at its field; what it would say about tunables is unknown.
  if (!read_text_file_if_readable(config.resolve(k.source))) return;
  const std::vector<std::string> texts = texts_seen_by(config, k);
  if (texts.empty()) return;  // a missing source is the loader's error
  for (const auto& [macro, values] : k.tunables) {
    bool read = false;
    for (const auto& text : texts) read = read || config::expression_reads(text, macro);
    if (read) continue;
    const std::string key = field + ".tunables." + macro;
    const config::SourcePos at = k.position_of(key, k.pos);
    out.errors.push_back({config.file.string(), at.line, at.column, key,
                          "the macro " + macro + " appears nowhere in " + k.source +
                              ", the repository headers it includes or its extra_sources: -D" + macro +
                              "=... would change nothing (a tunable is a macro the kernel's code reads)"});
  }
}

// How many template parameters a list has, and how many of them have no default.
std::pair<size_t, size_t> template_param_counts(const std::string& params) {
  size_t all = 0, required = 0;
  int angle = 0;
  std::string current;
  auto close = [&] {
    if (current.find_first_not_of(" \t\r\n") == std::string::npos) return;
    ++all;
    if (current.find('=') == std::string::npos) ++required;
    current.clear();
  };
  for (char c : params) {
    if (c == '<' || c == '(') ++angle;
    if (c == '>' || c == ')') --angle;
    if (c == ',' && angle == 0) {
      close();
      continue;
    }
    current += c;
  }
  close();
  return {all, required};
}

void check_template_args(const config::Config& config, const KernelSpec& k, const std::string& field,
                         LauncherFindings& out) {
  if (!k.is_global() || k.template_args == config::todo_marker) return;
  const auto text = read_text_file_if_readable(config.resolve(k.source));
  if (!text) return;  // a source that cannot be read is its own field's error
  cuda_source::ScanResult scan;
  cuda_source::scan_source(*text, k.source, scan);
  const cuda_source::ScannedKernel* kernel = nullptr;
  for (const auto& s : scan.kernels)
    if (s.is_definition && (s.name == k.global || s.name.ends_with("::" + k.global))) kernel = &s;
  if (!kernel) return;  // the launcher check reports a missing __global__ function
  const std::string where = kernel->file + ":" + std::to_string(kernel->line);
  const auto [all, required] = template_param_counts(kernel->template_params);
  const size_t given = config::launch_components(k.template_args).size();
  auto report = [&](const std::string& message) {
    const std::string key = field + ".template_args";
    const config::SourcePos at = k.position_of(key, k.pos);
    out.errors.push_back({config.file.string(), at.line, at.column, key, message});
  };
  if (given > 0 && all == 0)
    report("'" + k.global + "' (" + where + ") is not a template: remove template_args = \"" + k.template_args + "\"");
  else if (given == 0 && required > 0)
    report("'" + k.global + "' (" + where + ") is a template <" + kernel->template_params +
           ">: give its arguments, e.g. template_args = \"float, 256\"");
  else if (given > all)
    report("template_args = \"" + k.template_args + "\" gives " + std::to_string(given) + " arguments; '" + k.global +
           "' (" + where + ") takes " + std::to_string(all) + " <" + kernel->template_params + ">");
  else if (given < required)
    report("template_args = \"" + k.template_args + "\" gives " + std::to_string(given) + " of the " +
           std::to_string(required) + " arguments '" + k.global + "' (" + where + ") needs <" +
           kernel->template_params + ">");
}

// A kernel target's grid, block and shared_bytes read only what the shim binds (bot/checks/launch_names_check.h).
void check_launch_names(const config::Config& config, const KernelSpec& k, const std::string& field,
                        LauncherFindings& out) {
  if (!k.is_global()) return;
  const std::vector<std::string> texts = texts_seen_by(config, k);
  if (texts.empty()) return;  // a missing source is the loader's error
  std::vector<std::string> defined = file_scope_names(texts);
  for (const auto* list : {&config.project.defines, &k.defines})  // -DNAME=VALUE: macros too
    for (const auto& d : *list) defined.push_back(d.substr(0, d.find('=')));
  for (const auto& problem : launch_name_problems(k, defined, k.source)) {
    const std::string key = field + "." + problem.key;
    const config::SourcePos at = k.position_of(key, k.pos);
    out.errors.push_back({config.file.string(), at.line, at.column, key,
                          "kernel \"" + k.name + "\" " + problem.key + ": " + problem.message});
  }
}

}  // namespace

void check_source_fit(const config::Config& config, LauncherFindings& out) {
  for (size_t i = 0; i < config.kernels.size(); ++i) {
    const std::string field = "kernel[" + std::to_string(i) + "]";
    check_tunables(config, config.kernels[i], field, out);
    check_template_args(config, config.kernels[i], field, out);
    check_launch_names(config, config.kernels[i], field, out);
  }
}

}  // namespace kb::bot
