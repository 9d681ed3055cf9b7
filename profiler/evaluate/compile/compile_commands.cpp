#include "profiler/evaluate/compile/compile_commands.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/file_io.h"
#include "profiler/evaluate/compile/quoted_words.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

fs::path normalized(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

void collect(const std::vector<std::string>& args, const fs::path& directory, std::vector<std::string>& out,
             int depth) {
  auto absolute = [&](const std::string& p) {
    return (fs::path(p).is_absolute() ? fs::path(p) : directory / p).lexically_normal().string();
  };
  // Value-taking flags: "-I dir" and "-Idir" (and nvcc's long spellings) both occur.
  static const std::pair<const char*, const char*> kPathFlags[] = {{"-I", "-I"},
                                                                   {"--include-path", "-I"},
                                                                   {"-isystem", "-isystem"},
                                                                   {"--system-include", "-isystem"}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool matched = false;
    for (const auto& [flag, spelling] : kPathFlags) {
      std::string f = flag;
      if (a == f && i + 1 < args.size()) {
        if (std::string(spelling) == "-I") out.push_back("-I" + absolute(args[++i]));
        else out.push_back(spelling), out.push_back(absolute(args[++i]));
        matched = true;
      } else if (a.starts_with(flag) && a.size() > f.size()) {
        std::string value = a.substr(f.size());
        if (value[0] == '=') value = value.substr(1);
        else if (f.starts_with("--")) continue;  // "--include-pathX" is not this flag; "-Idir", "-isystemdir" are
        if (std::string(spelling) == "-I") out.push_back("-I" + absolute(value));
        else out.push_back(spelling), out.push_back(absolute(value));
        matched = true;
      }
      if (matched) break;
    }
    if (matched) continue;
    if ((a == "-D" || a == "-U" || a == "--define-macro" || a == "--undefine-macro") && i + 1 < args.size()) {
      out.push_back((a == "-D" || a == "--define-macro" ? "-D" : "-U") + args[++i]);
    } else if (a.starts_with("-D") || a.starts_with("-U")) {
      out.push_back(a);
    } else if (a.starts_with("--define-macro=")) {
      out.push_back("-D" + a.substr(15));
    } else if (a.starts_with("-std=") || a.starts_with("--std=")) {
      out.push_back(a[1] == '-' ? a.substr(1) : a);
    } else if (a == "-std" && i + 1 < args.size()) {
      out.push_back("-std=" + args[++i]);
    } else if (a == "--expt-relaxed-constexpr" || a == "-expt-relaxed-constexpr" || a == "--extended-lambda" ||
               a == "--expt-extended-lambda" || a == "-extended-lambda") {
      out.push_back(a);
    } else if ((a == "--options-file" || a == "-optf") && i + 1 < args.size() && depth < 4) {
      collect(split_command_line(try_read_text_file(absolute(args[++i])).value_or("")), directory, out, depth + 1);
    } else if (a.starts_with("@") && depth < 4) {
      collect(split_command_line(try_read_text_file(absolute(a.substr(1))).value_or("")), directory, out, depth + 1);
    }
  }
}

// Later -std flags override earlier ones in nvcc; keep only the last, and drop exact repeats.
std::vector<std::string> tidy(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  std::string last_std;
  for (const auto& f : flags)
    if (f.starts_with("-std=")) last_std = f;
  for (size_t i = 0; i < flags.size(); ++i) {
    const auto& f = flags[i];
    if (f.starts_with("-std=")) continue;
    if (f == "-isystem" && i + 1 < flags.size()) {
      out.push_back(f);
      out.push_back(flags[++i]);
      continue;
    }
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  if (!last_std.empty()) out.push_back(last_std);
  return out;
}

}  // namespace

std::vector<std::string> split_command_line(const std::string& command) { return split_words(command, kShellWords); }

std::vector<std::string> relevant_compile_flags(const std::vector<std::string>& args, const fs::path& directory) {
  std::vector<std::string> out;
  // args[0] is the compiler; skip it.
  collect(std::vector<std::string>(args.begin() + (args.empty() ? 0 : 1), args.end()), directory, out, 0);
  return tidy(out);
}

std::vector<fs::path> find_compile_databases(const fs::path& root, const std::string& setting) {
  std::vector<fs::path> out;
  if (setting == "none" || setting.empty()) return out;
  if (setting != "auto") {
    fs::path p = fs::path(setting).is_absolute() ? fs::path(setting) : root / setting;
    if (fs::is_directory(p)) p /= "compile_commands.json";
    out.push_back(p);
    return out;
  }
  return build_tree_files(root, "compile_commands.json");
}

std::vector<fs::path> build_tree_files(const fs::path& root, const std::string& name) {
  std::error_code ec;
  std::vector<fs::path> found;
  if (fs::exists(root / name, ec)) found.push_back(root / name);
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (!e.is_directory(ec) || !e.path().filename().string().starts_with("build")) continue;
    if (fs::exists(e.path() / name, ec)) found.push_back(e.path() / name);
    for (const auto& sub : fs::directory_iterator(e.path(), ec))
      if (sub.is_directory(ec) && fs::exists(sub.path() / name, ec)) found.push_back(sub.path() / name);
  }
  // The most recently configured build is the one the user works with.
  std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
    std::error_code e1, e2;
    return fs::last_write_time(a, e1) > fs::last_write_time(b, e2);
  });
  return found;
}

std::vector<std::string> expand_response_files(const std::vector<std::string>& args, const fs::path& directory) {
  std::vector<std::string> out;
  auto expand = [&](auto& self, const std::vector<std::string>& words, int depth) -> void {
    for (size_t i = 0; i < words.size(); ++i) {
      const std::string& a = words[i];
      std::string file;
      if ((a == "--options-file" || a == "-optf") && i + 1 < words.size()) file = words[++i];
      else if (a.starts_with("@") && a.size() > 1) file = a.substr(1);
      if (file.empty() || depth >= 4) {
        if (file.empty()) out.push_back(a);
        continue;
      }
      const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : directory / file;
      self(self, split_command_line(try_read_text_file(p).value_or("")), depth + 1);
    }
  };
  expand(expand, args, 0);
  return out;
}

std::optional<CompileCommandFlags> lookup_compile_flags(const fs::path& root, const std::string& setting,
                                                        const fs::path& source) {
  auto command = lookup_compile_command(root, setting, source);
  if (!command) return std::nullopt;
  return CompileCommandFlags{command->database, relevant_compile_flags(command->arguments, command->directory)};
}

std::optional<CompileCommand> lookup_compile_command(const fs::path& root, const std::string& setting,
                                                     const fs::path& source) {
  const fs::path wanted = normalized(source);
  for (const auto& db : find_compile_databases(root, setting)) {
    nlohmann::json entries;
    try {
      entries = nlohmann::json::parse(try_read_text_file(db, kDataFileLimitBytes).value_or(""));
    } catch (const std::exception& e) {
      spdlog::warn("{}: not a readable compile_commands.json ({}); ignoring it", db.string(), e.what());
      continue;
    }
    if (!entries.is_array()) continue;
    for (const auto& entry : entries) {
      if (!entry.is_object() || !entry.contains("file")) continue;
      fs::path directory = entry.value("directory", db.parent_path().string());
      fs::path file = entry["file"].get<std::string>();
      if (!file.is_absolute()) file = directory / file;
      if (normalized(file) != wanted) continue;
      std::vector<std::string> args;
      if (entry.contains("arguments") && entry["arguments"].is_array())
        args = entry["arguments"].get<std::vector<std::string>>();
      else args = split_command_line(entry.value("command", ""));
      return CompileCommand{db, directory, args};
    }
  }
  return std::nullopt;
}

}  // namespace kb::profiler
