#include "config/config.h"

namespace kb::config {
namespace {
constexpr std::pair<ArgRole, const char*> kRoles[] = {{ArgRole::input, "input"},   {ArgRole::output, "output"},
                                                      {ArgRole::inout, "inout"},   {ArgRole::scalar, "scalar"},
                                                      {ArgRole::size, "size"},     {ArgRole::stream, "stream"}};
struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
  bool is_float;
  const char* cpp;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::float64, "float64", 8, true, "double"},   {DType::float32, "float32", 4, true, "float"},
    {DType::float16, "float16", 2, true, "__half"},   {DType::bfloat16, "bfloat16", 2, true, "__nv_bfloat16"},
    {DType::int64, "int64", 8, false, "int64_t"},     {DType::int32, "int32", 4, false, "int"},
    {DType::uint32, "uint32", 4, false, "unsigned"},  {DType::int8, "int8", 1, false, "int8_t"},
    {DType::uint8, "uint8", 1, false, "uint8_t"}};
const DTypeInfo& info(DType d) {
  for (const auto& i : kDTypes)
    if (i.dtype == d) return i;
  return kDTypes[1];
}
}  // namespace

const std::vector<const char*>& distribution_names() {
  static const std::vector<const char*> names = {"uniform", "normal", "large", "mixed_sign", "offset", "extreme"};
  return names;
}

const std::vector<const char*>& error_scale_names() {
  static const std::vector<const char*> names = {"plain", "abs_inputs"};
  return names;
}

const char* to_string(ArgRole role) {
  for (const auto& [r, name] : kRoles)
    if (r == role) return name;
  return "?";
}
const char* to_string(DType dtype) { return info(dtype).name; }
std::optional<ArgRole> parse_arg_role(const std::string& text) {
  for (const auto& [r, name] : kRoles)
    if (text == name) return r;
  return std::nullopt;
}
std::optional<DType> parse_dtype(const std::string& text) {
  for (const auto& i : kDTypes)
    if (text == i.name) return i.dtype;
  return std::nullopt;
}
size_t dtype_size(DType dtype) { return info(dtype).size; }
bool dtype_is_float(DType dtype) { return info(dtype).is_float; }
const char* dtype_cpp_type(DType dtype) { return info(dtype).cpp; }
bool role_is_buffer(ArgRole role) {
  return role == ArgRole::input || role == ArgRole::output || role == ArgRole::inout;
}

std::string SizeSet::label() const {
  std::string out;
  for (const auto& [name, value] : values) out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return out.empty() ? "default" : out;
}

const KernelSpec* Config::find_kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Tolerance Config::tolerance_for(const KernelSpec& kernel, DType dtype) const {
  std::string name = to_string(dtype);
  if (auto it = kernel.tolerance.find(name); it != kernel.tolerance.end()) return it->second;
  if (auto it = verify.tolerance.find(name); it != verify.tolerance.end()) return it->second;
  return {};
}

std::filesystem::path Config::resolve(const std::string& path) const {
  std::filesystem::path p(path);
  if (p.is_absolute() || root.empty()) return p;
  return root / p;
}

}  // namespace kb::config
