#include "config/value_rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "config/size_expression.h"
#include "core/gpu_arch.h"

namespace kb::config {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

// The compute capabilities nvcc has had a code generator for (Maxwell to Blackwell); 101 is the
// name CUDA 12.8 gave what CUDA 13 calls 110.
const std::set<int>& known_compute_capabilities() {
  static const std::set<int> known = {50, 52, 53, 60, 61,  62,  70,  72,  75,  80, 86,
                                      87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  return known;
}

// The literal value of an expression without names; nullopt when it has names or does not parse
// (the loader reports the latter).
std::optional<double> literal_value(const std::string& text) {
  try {
    if (text.empty() || !expression_names(text).empty()) return std::nullopt;
    return evaluate_expression(text, {});
  } catch (const ExpressionError&) {
    return std::nullopt;
  }
}

struct Range {
  double lo, hi;
  const char* type;
};

Range range_of(DType dtype) {
  switch (dtype) {
    case DType::int8: return {-128, 127, "int8 (signed char)"};
    case DType::uint8: return {0, 255, "uint8 (unsigned char)"};
    case DType::int32: return {-2147483648.0, 2147483647.0, "int32 (int)"};
    case DType::uint32: return {0, 4294967295.0, "uint32 (unsigned int)"};
    case DType::int64: return {-9223372036854775808.0, 9223372036854775807.0, "int64"};
    case DType::float16: return {-65504, 65504, "float16"};
    case DType::bfloat16:
    case DType::float32:
      return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
              dtype == DType::float32 ? "float32 (float)" : "bfloat16"};
    case DType::float64: break;
  }
  return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), "float64 (double)"};
}

std::string number_text(double v) {
  if (std::abs(v) < 1e18 && v == std::floor(v)) return std::to_string(static_cast<int64_t>(v));
  return std::to_string(v);
}

}  // namespace

std::string kernel_name_problem(const std::string& name) {
  const std::string rule =
      " (a kernel's name names its results directory and its PR branch: letters, digits, '_', '.' and '-', "
      "starting with a letter or '_')";
  if (name.empty()) return "must not be empty" + rule;
  if (name.size() > 100) return "is " + std::to_string(name.size()) + " characters long; at most 100" + rule;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_')
    return "\"" + name + "\" must start with a letter or '_'" + rule;
  if (auto bad = std::find_if_not(name.begin(), name.end(), name_char); bad != name.end())
    return "\"" + name + "\" contains " +
           (static_cast<unsigned char>(*bad) >= 0x80 ? std::string("a character outside ASCII")
                                                     : "'" + std::string(1, *bad) + "'") +
           rule;
  if (name.find("..") != std::string::npos) return "\"" + name + "\" contains \"..\"" + rule;
  if (name.back() == '.' || name.ends_with(".lock"))
    return "\"" + name + "\" ends in '" + (name.back() == '.' ? "." : ".lock") +
           "', which git refuses in a branch name";
  return "";
}

std::string url_problem(const std::string& url) {
  const std::string expected = ": expected an http:// or https:// URL with a host, e.g. https://api.openai.com/v1";
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return "\"" + url + "\" is not a URL" + expected;
  if (const std::string scheme = url.substr(0, sep); scheme != "http" && scheme != "https")
    return "\"" + url + "\" has the scheme '" + scheme + "'" + expected;
  const std::string rest = url.substr(sep + 3);
  if (url.find_first_of(" \t\r\n") != std::string::npos) return "\"" + url + "\" contains white space" + expected;
  const std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  std::string host = authority.substr(authority.find('@') == std::string::npos ? 0 : authority.find('@') + 1);
  if (!host.empty() && host.front() == '[') {  // [::1]:8080
    if (host.find(']') == std::string::npos) return "\"" + url + "\" has an unclosed '[' in its host" + expected;
    host = host.substr(host.find(']') + 1);
    if (!host.empty() && host.front() != ':') return "\"" + url + "\" has text after its host" + expected;
    host = host.empty() ? "ipv6" : "ipv6" + host;
  }
  const std::string port = host.find(':') == std::string::npos ? "" : host.substr(host.find(':') + 1);
  host = host.substr(0, host.find(':'));
  if (host.empty()) return "\"" + url + "\" has no host" + expected;
  if (!std::all_of(host.begin(), host.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
      }))
    return "\"" + url + "\" has a host with characters no host name has" + expected;
  if (authority.find(':') != std::string::npos && authority.front() != '[' &&
      (port.empty() || port.size() > 5 ||
       !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }) || std::stoi(port) > 65535 ||
       std::stoi(port) == 0))
    return "\"" + url + "\" has a port that is not a number from 1 to 65535" + expected;
  return "";
}

std::string gpu_arch_problem(const std::string& arch) {
  const std::string forms = ": write it as sm_80, sm_90a, compute_86 or 86 (a compute capability nvcc knows: 50 to 121)";
  if (arch == "native" || arch == "all" || arch == "all-major")
    return "\"" + arch + "\" is an nvcc keyword, not an architecture: list the architectures themselves, as" +
           forms.substr(std::string(": write it as").size());
  const auto parsed = parse_gpu_arch(arch);
  if (!parsed) return "\"" + arch + "\" is not a GPU architecture" + forms;
  if (!known_compute_capabilities().count(parsed->cc))
    return "\"" + arch + "\" names compute capability " + std::to_string(parsed->major()) + "." +
           std::to_string(parsed->minor()) + ", which nvcc has no code generator for" + forms;
  if (parsed->suffix == 'a' && parsed->cc < 90)
    return "\"" + arch + "\": architecture-specific ('a') targets begin with sm_90a" + forms;
  if (parsed->suffix == 'f' && parsed->cc < 100)
    return "\"" + arch + "\": family ('f') targets begin with sm_100f" + forms;
  return "";
}

std::string value_range_problem(const ArgSpec& arg, const std::map<std::string, int64_t>& sizes) {
  if (arg.role != ArgRole::size && arg.role != ArgRole::scalar) return "";
  if (arg.value.empty() || arg.value == todo_marker) return "";
  double v = 0;
  try {
    for (const auto& name : expression_names(arg.value))
      if (!sizes.count(name)) return "";  // the loader names the undefined size
    v = evaluate_expression(arg.value, sizes);
  } catch (const ExpressionError&) {
    return "";  // the loader reports a syntax error
  }
  if (arg.role == ArgRole::size && v < 0)
    return "\"" + arg.value + "\" is " + number_text(v) + ": a size cannot be negative";
  const Range r = range_of(arg.dtype);
  if (v < r.lo || v > r.hi)
    return "\"" + arg.value + "\" is " + number_text(v) + ", outside the range of " + r.type + " (" +
           number_text(r.lo) + " to " + number_text(r.hi) + "): the parameter would receive another value";
  return "";
}

std::vector<TargetProblem> launch_literal_problems(const KernelSpec& spec) {
  std::vector<TargetProblem> out;
  if (!spec.is_global()) return out;
  const char* axes[] = {"x", "y", "z"};
  const auto block = launch_components(spec.block);
  double threads = 1;
  bool all_literal = !block.empty() && block.size() <= 3;
  for (size_t i = 0; i < block.size() && i < 3; ++i) {
    const double limit = i == 2 ? 64 : 1024;
    const auto v = literal_value(block[i]);
    if (!v) {
      all_literal = false;
      continue;
    }
    threads *= *v;
    if (*v < 1 || *v > limit || *v != std::floor(*v))
      out.push_back({"block", std::string("block.") + axes[i] + " = " + block[i] + ": each block dimension is 1 to " +
                                  number_text(limit) + " (x, y: 1024; z: 64)"});
  }
  if (all_literal && out.empty() && threads > 1024)
    out.push_back(
        {"block", "\"" + spec.block + "\" is " + number_text(threads) + " threads per block; a GPU runs at most 1024"});
  const auto grid = launch_components(spec.grid);
  for (size_t i = 0; i < grid.size() && i < 3; ++i) {
    const double limit = i == 0 ? 2147483647.0 : 65535;
    if (const auto v = literal_value(grid[i]); v && (*v < 1 || *v > limit || *v != std::floor(*v)))
      out.push_back({"grid", std::string("grid.") + axes[i] + " = " + grid[i] + ": the grid's " + axes[i] +
                                 " dimension is 1 to " + number_text(limit)});
  }
  constexpr double kMaxSharedBytes = 227 * 1024;  // the most a block can opt into (sm_90, sm_100)
  if (const auto v = literal_value(spec.shared_bytes); v && (*v < 0 || *v > kMaxSharedBytes))
    out.push_back({"shared_bytes", "\"" + spec.shared_bytes + "\" bytes: dynamic shared memory is 0 to " +
                                       number_text(kMaxSharedBytes) + " (227 KiB) per block"});
  return out;
}

}  // namespace kb::config
