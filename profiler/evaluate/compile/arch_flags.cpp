#include "profiler/evaluate/compile/arch_flags.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

#include "common/text.h"
#include "profiler/evaluate/compile/quoted_words.h"

namespace kb::profiler {
namespace {

void add_arch(ArchReading& r, const GpuArch& arch) {
  if (std::find(r.archs.begin(), r.archs.end(), arch) == r.archs.end()) r.archs.push_back(arch);
  std::sort(r.archs.begin(), r.archs.end());
}

void add_keyword(ArchReading& r, const std::string& keyword) {
  if (keyword == "native") r.native = true;
  else if (std::find(r.keywords.begin(), r.keywords.end(), keyword) == r.keywords.end()) r.keywords.push_back(keyword);
}

bool is_keyword(const std::string& word) { return word == "native" || word == "all" || word == "all-major"; }

// One -arch value: "sm_80", "compute_90a", "native", "all", or a comma-separated list of them.
void read_arch_value(ArchReading& r, const std::string& flag, const std::string& value) {
  for (const std::string& word : split(value, ',')) {
    if (is_keyword(word)) add_keyword(r, word);
    else if (auto arch = parse_gpu_arch(word); arch && (word.starts_with("sm_") || word.starts_with("compute_")))
      add_arch(r, *arch);
    else r.unread.push_back(flag + " " + value + ": '" + word + "' is not an architecture kernelbot reads");
  }
}

// One -gencode value: "arch=compute_80,code=sm_80", "arch=compute_80,code=[sm_80,compute_80]".
void read_gencode_value(ArchReading& r, const std::string& flag, std::string value) {
  value.erase(std::remove_if(value.begin(), value.end(), [](char c) { return c == '"' || c == '\''; }), value.end());
  for (const std::string& field : split(value, ','))
    if (field.starts_with("arch=")) {
      const std::string word = field.substr(5);
      if (auto arch = parse_gpu_arch(word); arch && (word.starts_with("compute_") || word.starts_with("sm_")))
        add_arch(r, *arch);
      else r.unread.push_back(flag + " " + value + ": '" + word + "' is not an architecture kernelbot reads");
      return;
    }
  r.unread.push_back(flag + " " + value + ": no arch= in it");
}

enum class ArchFlag { none, gencode, arch, clang_arch, code };

struct FlagMatch {
  ArchFlag kind = ArchFlag::none;
  std::string name;   // the flag as written, without its value
  std::string value;  // empty when the value is the next argument
};

FlagMatch match_arch_flag(const std::string& a) {
  static const std::pair<const char*, ArchFlag> kFlags[] = {{"-gencode", ArchFlag::gencode},
                                                            {"--generate-code", ArchFlag::gencode},
                                                            {"-arch", ArchFlag::arch},
                                                            {"--gpu-architecture", ArchFlag::arch},
                                                            {"-code", ArchFlag::code},
                                                            {"--gpu-code", ArchFlag::code},
                                                            {"--cuda-gpu-arch", ArchFlag::clang_arch},
                                                            {"--offload-arch", ArchFlag::clang_arch}};
  for (const auto& [flag, kind] : kFlags) {
    const std::string f = flag;
    if (a == f) return {kind, f, ""};
    if (a.starts_with(f + "=")) return {kind, f, a.substr(f.size() + 1)};
  }
  return {};
}

// The values of one CMake architecture setting; `where` names it ("CMakeLists.txt:12: CUDA_ARCHITECTURES").
void read_cmake_values(ArchReading& r, const std::vector<std::string>& values, const std::string& where) {
  std::string joined;
  for (const auto& v : values) joined += (joined.empty() ? "" : ";") + v;
  if (joined.find("${") != std::string::npos || joined.find("$<") != std::string::npos ||
      joined.find("$ENV{") != std::string::npos) {
    r.unread.push_back(where + " " + joined +
                       ": a variable or generator expression, which kernelbot does not evaluate");
    return;
  }
  ArchReading values_read = archs_from_cmake_value(joined);
  for (auto& u : values_read.unread) u = where + " " + u;
  values_read.evidence = {where + " " + joined};
  merge_reading(r, values_read);
}

}  // namespace

ArchReading archs_from_nvcc_flags(const std::vector<std::string>& args) {
  ArchReading r;
  std::optional<std::pair<std::string, std::string>> last_arch;  // nvcc keeps the last -arch
  for (size_t i = 0; i < args.size(); ++i) {
    FlagMatch m = match_arch_flag(args[i]);
    if (m.kind == ArchFlag::none) continue;
    if (m.value.empty() && args[i].find('=') == std::string::npos) {
      if (i + 1 >= args.size()) {
        r.unread.push_back(m.name + " without a value");
        continue;
      }
      m.value = args[++i];
    }
    switch (m.kind) {
      case ArchFlag::gencode:
        read_gencode_value(r, m.name, m.value);
        r.evidence.push_back(m.name + " " + m.value);
        break;
      case ArchFlag::arch: last_arch = {m.name, m.value}; break;
      case ArchFlag::clang_arch:
        read_arch_value(r, m.name, m.value);
        r.evidence.push_back(m.name + "=" + m.value);
        break;
      case ArchFlag::code:
      case ArchFlag::none: break;
    }
  }
  if (last_arch) {
    read_arch_value(r, last_arch->first, last_arch->second);
    r.evidence.push_back(last_arch->first + "=" + last_arch->second);
  }
  return r;
}

std::vector<std::string> without_arch_flags(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const FlagMatch m = match_arch_flag(flags[i]);
    if (m.kind == ArchFlag::none) out.push_back(flags[i]);
    else if (flags[i] == m.name) ++i;  // its value is the next argument
  }
  return out;
}

ArchReading archs_from_cmake_value(const std::string& value) {
  ArchReading r;
  const std::string upper = [&] {
    std::string u = trim(value);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }();
  if (upper == "OFF" || upper == "FALSE" || upper == "NO" || upper == "0") {
    r.unread.push_back(trim(value) +
                       ": CMake passes no architecture flag, so nvcc builds for its default architecture, which "
                       "kernelbot does not guess");
    return r;
  }
  for (std::string item : split(value, ';')) {
    item = trim(item);
    if (item.empty()) continue;
    if (is_keyword(item)) {
      add_keyword(r, item);
      continue;
    }
    std::string arch_text = item;
    for (const char* kind : {"-real", "-virtual"})
      if (arch_text.size() > std::string(kind).size() &&
          arch_text.substr(arch_text.size() - std::string(kind).size()) == kind)
        arch_text.resize(arch_text.size() - std::string(kind).size());
    if (auto arch = parse_gpu_arch(arch_text); arch && arch_text.find('.') == std::string::npos) add_arch(r, *arch);
    else r.unread.push_back("'" + item + "' is not an architecture kernelbot reads");
  }
  return r;
}

ArchReading archs_from_cmake_cache(const std::string& text) {
  ArchReading r;
  for (const std::string& line : split(text, '\n')) {
    if (!line.starts_with("CMAKE_CUDA_ARCHITECTURES:") && !line.starts_with("CMAKE_CUDA_ARCHITECTURES=")) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = line.substr(eq + 1);
    if (!value.empty() && value.back() == '\r') value.pop_back();
    r = archs_from_cmake_value(value);
    for (auto& u : r.unread) u = "CMAKE_CUDA_ARCHITECTURES=" + u;
    r.evidence = {"CMAKE_CUDA_ARCHITECTURES=" + value};
  }
  return r;
}

ArchReading archs_from_cmakelists(const std::string& text, const std::string& file) {
  ArchReading r;
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == '#') {  // a comment, to the line's end (a bracket comment #[[ ]] to its close)
      const size_t end = text.compare(i, 3, "#[[") == 0 ? text.find("]]", i) : text.find('\n', i);
      const size_t stop = end == std::string::npos ? text.size() : end;
      line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(i),
                                          text.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
      i = stop == text.size() ? stop : (text[stop] == '\n' ? stop - 1 : stop + 1);
      continue;
    }
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_') ||
        (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_')))
      continue;
    size_t name_end = i;
    while (name_end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_'))
      ++name_end;
    size_t open = name_end;
    while (open < text.size() && (text[open] == ' ' || text[open] == '\t')) ++open;
    const std::string name = lower(text.substr(i, name_end - i));
    if (open >= text.size() || text[open] != '(' ||
        (name != "set" && name != "set_target_properties" && name != "set_property")) {
      i = name_end - 1;
      continue;
    }
    // The arguments, to the matching parenthesis, quotes respected.
    size_t close = open + 1;
    int depth = 1;
    bool quoted = false;
    for (; close < text.size() && depth > 0; ++close) {
      if (text[close] == '"' && text[close - 1] != '\\') quoted = !quoted;
      else if (!quoted && text[close] == '(') ++depth;
      else if (!quoted && text[close] == ')') --depth;
    }
    const std::string body = text.substr(open + 1, close - open - 2);
    const int command_line = line;
    line += static_cast<int>(std::count(body.begin(), body.end(), '\n'));
    i = close - 1;
    const std::vector<std::string> args = split_words(body, kCMakeWords);
    const std::string where = file + ":" + std::to_string(command_line) + ":";
    if (name == "set" && !args.empty() && args[0] == "CMAKE_CUDA_ARCHITECTURES") {
      std::vector<std::string> values;
      for (size_t k = 1; k < args.size() && args[k] != "CACHE" && args[k] != "PARENT_SCOPE"; ++k)
        values.push_back(args[k]);
      read_cmake_values(r, values, where + " set(CMAKE_CUDA_ARCHITECTURES)");
    } else if (name == "set_target_properties") {
      const auto props = std::find(args.begin(), args.end(), "PROPERTIES");
      for (auto k = props; k != args.end() && k + 1 != args.end(); ++k)
        if (*k == "CUDA_ARCHITECTURES") read_cmake_values(r, {*(k + 1)}, where + " CUDA_ARCHITECTURES");
    } else if (name == "set_property") {
      const auto prop = std::find(args.begin(), args.end(), "PROPERTY");
      if (prop != args.end() && prop + 1 != args.end() && *(prop + 1) == "CUDA_ARCHITECTURES")
        read_cmake_values(r, std::vector<std::string>(prop + 2, args.end()), where + " CUDA_ARCHITECTURES");
    }
  }
  return r;
}

std::vector<GpuArch> expand_arch_keyword(const std::string& keyword, const std::vector<GpuArch>& toolkit) {
  std::vector<GpuArch> plain;
  for (const auto& a : toolkit)
    if (a.suffix == 0) plain.push_back(a);
  std::sort(plain.begin(), plain.end());
  if (keyword == "all") return plain;
  std::vector<GpuArch> out;
  for (size_t i = 0; i < plain.size(); ++i)
    if (i == 0 || plain[i].minor() == 0) out.push_back(plain[i]);
  return out;
}

void merge_reading(ArchReading& into, const ArchReading& more) {
  for (const auto& a : more.archs) add_arch(into, a);
  if (more.native) into.native = true;
  for (const auto& k : more.keywords) add_keyword(into, k);
  into.evidence.insert(into.evidence.end(), more.evidence.begin(), more.evidence.end());
  into.unread.insert(into.unread.end(), more.unread.begin(), more.unread.end());
}

}  // namespace kb::profiler
