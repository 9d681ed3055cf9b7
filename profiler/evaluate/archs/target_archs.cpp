#include "profiler/evaluate/archs/target_archs.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "common/file_io.h"
#include "profiler/evaluate/compile/arch_flags.h"
#include "profiler/evaluate/compile/compile_commands.h"
#include "profiler/evaluate/compile/variant_compiler.h"
#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

// A path as the user reads it: relative to the repository root when it lies inside it.
std::string shown(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  fs::path rel = fs::relative(path, root, ec);
  return ec || rel.empty() || rel.string().starts_with("..") ? path.string() : rel.string();
}

// The repository's CMakeLists.txt and *.cmake files, outside [project] discover_exclude and
// hidden directories (a build tree's generated CMake files are not the project's settings).
std::vector<fs::path> cmake_sources(const fs::path& root, const std::vector<std::string>& exclude) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      const bool excluded = std::find(exclude.begin(), exclude.end(), name) != exclude.end() ||
                            std::find(exclude.begin(), exclude.end(), shown(it->path(), root)) != exclude.end();
      if (excluded || name.starts_with('.') || name == "CMakeFiles" || it.depth() > 6) it.disable_recursion_pending();
      continue;
    }
    if (name == "CMakeLists.txt" || (name.size() > 6 && name.ends_with(".cmake"))) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A reading that names architectures becomes the list; keywords are expanded with the toolkit's.
bool take(TargetArchs& out, const ArchReading& reading, const std::string& source,
          const std::optional<std::vector<GpuArch>>& toolkit) {
  out.notes.insert(out.notes.end(), reading.unread.begin(), reading.unread.end());
  if (!reading.found()) return false;
  out.source = source;
  out.archs = reading.archs;
  out.native = reading.native;
  out.evidence = reading.evidence;
  for (const auto& keyword : reading.keywords) {
    const std::vector<GpuArch> list = toolkit ? *toolkit : toolkit_gpu_archs();
    const std::vector<GpuArch> expanded = expand_arch_keyword(keyword, list);
    if (expanded.empty()) {
      out.notes.push_back("'" + keyword +
                          "': the toolkit's list of architectures is not available here (nvcc "
                          "--list-gpu-arch), so it names none");
      continue;
    }
    std::string names;
    for (const auto& a : expanded) {
      names += (names.empty() ? "" : ", ") + a.sm();
      if (std::find(out.archs.begin(), out.archs.end(), a) == out.archs.end()) out.archs.push_back(a);
    }
    out.notes.push_back("'" + keyword + "' is " + names + " with this toolkit");
  }
  std::sort(out.archs.begin(), out.archs.end());
  return out.found();
}

}  // namespace

std::vector<GpuArch> toolkit_gpu_archs() {
  static std::once_flag once;
  static std::vector<GpuArch> archs;
  std::call_once(once, [] {
    const std::string nvcc = find_nvcc();
    if (nvcc.empty()) return;
    SandboxCommand cmd;
    cmd.argv = {nvcc, "--list-gpu-arch"};
    cmd.limits.wall_time_s = 60;
    SandboxResult r = run_sandboxed(cmd);
    if (!r.succeeded()) return;
    std::string line;
    for (char c : r.out + "\n") {
      if (c != '\n') {
        line += c;
        continue;
      }
      if (auto arch = parse_gpu_arch(line); arch && line.starts_with("compute_")) archs.push_back(*arch);
      line.clear();
    }
  });
  return archs;
}

TargetArchs read_target_archs(const config::Config& config, const config::KernelSpec& spec,
                              const std::optional<std::vector<GpuArch>>& toolkit) {
  TargetArchs out;
  const fs::path root = fs::absolute(config.root.empty() ? fs::current_path() : config.root);
  const std::string toml = config.file.empty() ? std::string("kernelbot.toml") : config.file.filename().string();

  if (!config.project.target_archs.empty()) {
    ArchReading listed;
    for (const auto& name : config.project.target_archs)
      if (auto arch = parse_gpu_arch(name)) listed.archs.push_back(*arch);  // the loader refused the others
    std::sort(listed.archs.begin(), listed.archs.end());
    listed.archs.erase(std::unique(listed.archs.begin(), listed.archs.end()), listed.archs.end());
    if (take(out, listed, toml + " [project] target_archs", toolkit)) return out;
  }

  std::vector<std::string> own = config.project.nvcc_flags;
  own.insert(own.end(), spec.nvcc_flags.begin(), spec.nvcc_flags.end());
  if (take(out, archs_from_nvcc_flags(own), toml + " nvcc_flags", toolkit)) return out;

  const fs::path source = config.resolve(spec.source);
  if (auto command = lookup_compile_command(root, config.project.compile_commands, source)) {
    const std::string where = shown(command->database, root) + ", the entry of " + spec.source;
    ArchReading reading = archs_from_nvcc_flags(expand_response_files(command->arguments, command->directory));
    if (!reading.found() && reading.unread.empty())
      reading.unread.push_back(where + " names no architecture: nvcc builds it for its default one, which kernelbot "
                                       "does not guess");
    if (take(out, reading, where, toolkit)) return out;
  }

  for (const auto& cache : build_tree_files(root, "CMakeCache.txt")) {
    ArchReading reading = archs_from_cmake_cache(try_read_text_file(cache).value_or(""));
    for (auto& u : reading.unread) u = shown(cache, root) + ": " + u;
    if (take(out, reading, shown(cache, root), toolkit)) return out;
    if (!reading.evidence.empty()) break;  // the newest cache that sets it is the build's word
  }

  ArchReading lists;
  std::vector<std::string> files;
  for (const auto& file : cmake_sources(root, config.project.discover_exclude)) {
    ArchReading reading = archs_from_cmakelists(try_read_text_file(file).value_or(""), shown(file, root));
    if (reading.found()) files.push_back(shown(file, root));
    merge_reading(lists, reading);
  }
  std::string where;
  for (const auto& f : files) where += (where.empty() ? "" : ", ") + f;
  if (files.size() > 1 || lists.evidence.size() > 1)
    where += " (every setting found, whatever if() or target it belongs to)";
  if (take(out, lists, where, toolkit)) return out;

  out.source = "none found (looked at " + toml +
               " [project] target_archs and nvcc_flags, compile_commands.json, CMakeCache.txt, CMakeLists.txt)";
  return out;
}

std::string describe_target_archs(const TargetArchs& targets) {
  if (!targets.found()) return targets.source;
  std::string names;
  for (const auto& a : targets.archs) names += (names.empty() ? "" : ", ") + a.sm();
  if (targets.native) names += std::string(names.empty() ? "" : ", ") + "native (the GPU kernelbot verifies on)";
  return names + " (from " + targets.source + ")";
}

}  // namespace kb::profiler
