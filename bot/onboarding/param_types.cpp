#include "bot/onboarding/param_types.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace kb::bot {
namespace {

std::vector<std::string> words(const std::string& type) {
  std::string spaced;
  for (char c : type) spaced += (c == '*' || c == '&') ? std::string(" ") + c + " " : std::string(1, c);
  std::istringstream in(spaced);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::optional<DType> dtype_of_element(const std::string& element) {
  static const std::map<std::string, DType> known = {
      {"float", DType::float32},
      {"double", DType::float64},
      {"__half", DType::float16},
      {"half", DType::float16},
      {"__nv_half", DType::float16},
      {"__nv_bfloat16", DType::bfloat16},
      {"nv_bfloat16", DType::bfloat16},
      {"__bfloat16", DType::bfloat16},
      {"int", DType::int32},
      {"signed int", DType::int32},
      {"signed", DType::int32},
      {"int32_t", DType::int32},
      {"unsigned", DType::uint32},
      {"unsigned int", DType::uint32},
      {"uint32_t", DType::uint32},
      {"uint", DType::uint32},
      {"long long", DType::int64},
      {"long long int", DType::int64},
      {"int64_t", DType::int64},
      {"long", DType::int64},
      {"long int", DType::int64},
      {"ptrdiff_t", DType::int64},
      {"int8_t", DType::int8},
      {"signed char", DType::int8},
      {"char", DType::int8},
      {"uint8_t", DType::uint8},
      {"unsigned char", DType::uint8},
      {"std::int32_t", DType::int32},
      {"std::int64_t", DType::int64},
      {"std::uint32_t", DType::uint32},
      {"std::int8_t", DType::int8},
      {"std::uint8_t", DType::uint8},
      // Unsigned 64-bit sizes: int64 has the same width, and sizes stay far below 2^63.
      {"size_t", DType::int64},
      {"std::size_t", DType::int64},
      {"unsigned long", DType::int64},
      {"unsigned long long", DType::int64},
      {"uint64_t", DType::int64},
      // One byte holding 0 or 1: a flag passed as uint8 converts to the launcher's bool.
      {"bool", DType::uint8}};
  auto it = known.find(element);
  if (it == known.end()) return std::nullopt;
  return it->second;
}

ParamType classify_param(const std::string& type, const cuda_source::TypeAliases& aliases) {
  ParamType p;
  std::string resolved = cuda_source::resolve_type(type, aliases, &p.aliases);
  int stars = 0;
  bool reference = false;
  std::vector<std::string> base;
  bool const_before_star = false;
  for (const auto& w : words(resolved)) {
    if (w == "*") ++stars;
    else if (w == "&") reference = true;
    else if (w == "const") const_before_star |= stars == 0;
    else if (w == "volatile" || w == "__restrict__" || w == "__restrict" || w == "restrict" || w == "struct") continue;
    else base.push_back(w);
  }
  std::string element;
  for (const auto& w : base) element += (element.empty() ? "" : " ") + w;
  p.element = element;
  p.dtype = dtype_of_element(element);
  if (resolved.find('(') != std::string::npos) {
    p.why_not_drivable = "a function pointer";
  } else if (reference) {
    p.why_not_drivable = "a reference";
  } else if (stars > 1) {
    p.why_not_drivable = "a pointer to pointers (an array of buffers)";
  } else if (stars == 1) {
    p.kind = ParamKind::pointer;
    p.const_pointee = const_before_star;
  } else if (element == "cudaStream_t" || element == "CUstream" || element == "CUstream_st") {
    p.kind = ParamKind::stream;
  } else if (p.dtype) {
    p.kind = ParamKind::scalar;
  } else {
    p.why_not_drivable = "'" + element +
                         "' is not a number or a pointer (an opaque handle or a struct passed by value)";
  }
  return p;
}

std::string describe_aliases(const std::vector<const cuda_source::TypeAlias*>& aliases) {
  std::string out;
  for (const auto* a : aliases) {
    if (!out.empty()) out += "; ";
    out += a->name + " is " + a->chosen;
    if (!a->file.empty()) out += " at " + a->file + ":" + std::to_string(a->line);
    if (!a->condition.empty()) out += " (" + a->condition + ")";
    if (!a->branch_known) out += " (which branch a plain build takes could not be told; the first was taken)";
    std::string others;
    for (const auto& alt : a->alternatives)
      if (alt != a->chosen) others += (others.empty() ? "" : ", ") + alt;
    if (!others.empty()) out += "; also defined as: " + others;
  }
  return out;
}

}  // namespace kb::bot
