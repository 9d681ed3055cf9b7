#include "core/arg_type_names.h"

#include <iterator>
#include <utility>

namespace kb {
namespace {

constexpr std::pair<ArgRole, const char*> kRoles[] = {{ArgRole::input, "input"},        {ArgRole::output, "output"},
                                                      {ArgRole::inout, "inout"},        {ArgRole::scalar, "scalar"},
                                                      {ArgRole::size, "size"},          {ArgRole::stream, "stream"},
                                                      {ArgRole::workspace, "workspace"}};

struct DTypeName {
  DType dtype;
  const char* name;
  const char* cpp;
};
constexpr DTypeName kDTypes[] = {{DType::float64, "float64", "double"}, {DType::float32, "float32", "float"},
                                 {DType::float16, "float16", "__half"}, {DType::bfloat16, "bfloat16", "__nv_bfloat16"},
                                 {DType::int64, "int64", "int64_t"},    {DType::int32, "int32", "int"},
                                 {DType::uint32, "uint32", "unsigned"}, {DType::int8, "int8", "int8_t"},
                                 {DType::uint8, "uint8", "uint8_t"}};
static_assert(std::size(kDTypes) == kDTypeCount, "every DType has a name");

const DTypeName* find(DType d) {
  for (const auto& n : kDTypes)
    if (n.dtype == d) return &n;
  return nullptr;
}

}  // namespace

const char* to_string(ArgRole role) {
  for (const auto& [r, name] : kRoles)
    if (r == role) return name;
  return "unknown";
}

const char* to_string(DType dtype) {
  const DTypeName* n = find(dtype);
  return n ? n->name : "unknown";
}

std::optional<ArgRole> parse_arg_role(const std::string& text) {
  for (const auto& [r, name] : kRoles)
    if (text == name) return r;
  return std::nullopt;
}

std::optional<DType> parse_dtype(const std::string& text) {
  for (const auto& n : kDTypes)
    if (text == n.name) return n.dtype;
  return std::nullopt;
}

const std::vector<const char*>& arg_role_names() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> out;
    for (const auto& [r, name] : kRoles) out.push_back(name);
    return out;
  }();
  return names;
}

const std::vector<const char*>& dtype_names() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> out;
    for (const auto& n : kDTypes) out.push_back(n.name);
    return out;
  }();
  return names;
}

const char* dtype_cpp_type(DType dtype) {
  const DTypeName* n = find(dtype);
  return n ? n->cpp : "float";
}

}  // namespace kb
