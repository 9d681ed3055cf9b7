#include "profiler/evaluate/compile/nvcc_flag_paths.h"

#include <array>

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

enum class PathKind { directory, forced_include };

struct PathFlag {
  const char* name;
  PathKind kind;
  bool joined;  // the value may follow the name directly ("-Iinclude")
};

// Longer names before their prefixes ("-isystem" before "-I" is not needed: case differs).
constexpr std::array<PathFlag, 11> kPathFlags = {{
    {"--pre-include", PathKind::forced_include, false},
    {"-include", PathKind::forced_include, false},
    {"--include-path", PathKind::directory, false},
    {"--system-include", PathKind::directory, false},
    {"--library-path", PathKind::directory, false},
    {"-isystem", PathKind::directory, false},
    {"-idirafter", PathKind::directory, false},
    {"-iquote", PathKind::directory, false},
    {"-I", PathKind::directory, true},
    {"-L", PathKind::directory, true},
    {"-isysroot", PathKind::directory, false},
}};

// How `arg` names a path flag: the flag, and where its value is ("=value", "value" joined, or
// the next argument). nullptr when it is no path flag.
struct Match {
  const PathFlag* flag = nullptr;
  std::string prefix;  // what precedes the value in this argument ("-I", "--pre-include=")
  bool value_next = false;
};

Match match(const std::string& arg) {
  for (const auto& f : kPathFlags) {
    const std::string name = f.name;
    if (arg == name) return {&f, "", true};
    if (arg.starts_with(name + "=")) return {&f, name + "=", false};
    if (f.joined && arg.size() > name.size() && arg.starts_with(name)) return {&f, name, false};
  }
  return {};
}

std::string resolved(const std::string& value, PathKind kind, const fs::path& root) {
  if (value.empty() || fs::path(value).is_absolute() || root.empty()) return value;
  const fs::path in_root = (root / value).lexically_normal();
  if (kind == PathKind::directory) return in_root.string();
  std::error_code ec;
  return fs::exists(in_root, ec) ? in_root.string() : value;
}

}  // namespace

std::vector<std::string> resolve_flag_paths(const std::vector<std::string>& flags, const fs::path& root) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const Match m = match(flags[i]);
    if (!m.flag) {
      out.push_back(flags[i]);
    } else if (m.value_next) {
      out.push_back(flags[i]);
      if (i + 1 < flags.size()) out.push_back(resolved(flags[++i], m.flag->kind, root));
    } else {
      out.push_back(m.prefix + resolved(flags[i].substr(m.prefix.size()), m.flag->kind, root));
    }
  }
  return out;
}

SplitFlags split_forced_includes(const std::vector<std::string>& flags) {
  SplitFlags out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const Match m = match(flags[i]);
    const bool forced = m.flag && m.flag->kind == PathKind::forced_include;
    auto& into = forced ? out.forced_includes : out.rest;
    into.push_back(flags[i]);
    if (m.flag && m.value_next && i + 1 < flags.size()) into.push_back(flags[++i]);
  }
  return out;
}

}  // namespace kb::profiler
