#include "profiler/evaluate/compile/global_launch.h"

#include <set>
#include <sstream>

#include "config/kernel_target.h"
#include "core/arg_type_names.h"
#include "core/harness_job.h"
#include "cuda_source/knobs/kernel_launch_sites.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::profiler {
namespace {

const char* const kAxes[] = {"x", "y", "z"};

bool all_integers(const std::vector<std::string>& parts) {
  for (const auto& p : parts)
    if (!cuda_source::integer_value(p)) return false;
  return !parts.empty();
}

}  // namespace

std::optional<std::vector<int64_t>> launch_site_block(const config::KernelSpec& spec, const std::string& source_text) {
  if (!spec.is_global() || !all_integers(config::launch_components(spec.block))) return std::nullopt;
  auto knobs = cuda_source::find_kernel_knobs(source_text, spec.global, spec.source);
  return knobs.block;
}

std::optional<std::string> launch_site_template_args(const config::KernelSpec& spec, const std::string& source_text) {
  if (spec.template_args.empty() || !launch_site_block(spec, source_text)) return std::nullopt;
  auto knobs = cuda_source::find_kernel_knobs(source_text, spec.global, spec.source);
  if (!knobs.template_args ||
      config::launch_components(*knobs.template_args).size() != config::launch_components(spec.template_args).size())
    return std::nullopt;
  // Only names the shim sees: built-in types and the file's #defines (a local of the launching
  // function, `k<threads>`, is not in scope there).
  static const std::set<std::string> builtin = {"float",   "double",   "int",           "unsigned",   "long",
                                                "short",   "char",     "bool",          "signed",     "half",
                                                "__half",  "true",     "false",         "size_t",     "int64_t",
                                                "int32_t", "uint32_t", "__nv_bfloat16", "nv_bfloat16"};
  std::set<std::string> defines;
  for (const auto& d : cuda_source::read_directives(source_text))
    if (d.keyword == "define") defines.insert(d.name);
  for (const auto& t : cuda_source::tokenize_code(*knobs.template_args))
    if (t.kind == cuda_source::CodeToken::identifier && !builtin.count(t.text) && !defines.count(t.text))
      return std::nullopt;
  return knobs.template_args;
}

std::string global_launch_entry(const config::KernelSpec& spec, const std::optional<std::vector<int64_t>>& site_block,
                                bool advisory_probe, const std::optional<std::string>& site_template_args) {
  const auto grid = config::launch_components(spec.grid);
  const auto block = config::launch_components(spec.block);
  std::ostringstream s;
  s << "#include <type_traits>\n\n"
    << "// The launch of kernel target '" << spec.name << "' (global " << spec.global << "): the grid, block and\n"
    << "// shared bytes of kernelbot.toml, evaluated with the arguments bound by name.\n"
    << "namespace kb_shim {\n"
    << "template <class A, class B>\n"
    << "constexpr std::common_type_t<A, B> ceil_div(A a, B b) { return (a + b - 1) / b; }\n"
    << "template <class A, class B>\n"
    << "constexpr std::common_type_t<A, B> min(A a, B b) { return a < b ? a : b; }\n"
    << "template <class A, class B>\n"
    << "constexpr std::common_type_t<A, B> max(A a, B b) { return a < b ? b : a; }\n\n"
    << "static int launch(void** kb_args) {\n";
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const auto& arg = spec.args[i];
    const char* type = dtype_cpp_type(arg.dtype);
    if (role_is_buffer(arg.role))
      s << "  " << type << "* " << arg.name << " = static_cast<" << type << "*>(kb_args[" << i << "]);";
    else s << "  const " << type << " " << arg.name << " = *static_cast<" << type << "*>(kb_args[" << i << "]);";
    s << "  // " << to_string(arg.role) << " " << to_string(arg.dtype) << "\n";
  }
  s << "  cudaStream_t kb_stream = *static_cast<cudaStream_t*>(kb_args[" << spec.args.size()
    << "]);  // the harness's stream\n";
  for (size_t d = 0; d < 3; ++d) {
    std::string value = d < block.size() ? block[d] : "1", note;
    if (site_block) {
      value = d < site_block->size() ? std::to_string((*site_block)[d]) : "1";
      note = "  // as the launch site writes it";
    }
    const std::string macro = std::string("KB_BLOCK_") + static_cast<char>('X' + d);
    if (advisory_probe)
      s << "#ifdef " << macro << "\n  const unsigned block_" << kAxes[d] << " = " << macro << ";\n#else\n";
    s << "  const unsigned block_" << kAxes[d] << " = static_cast<unsigned>(" << value << ");" << note << "\n";
    if (advisory_probe) s << "#endif\n";
  }
  s << "  const dim3 kb_grid(";
  for (size_t d = 0; d < grid.size(); ++d) s << (d ? ", " : "") << "static_cast<unsigned>(" << grid[d] << ")";
  s << ");\n"
    << "  const size_t kb_shared = static_cast<size_t>(" << (spec.shared_bytes.empty() ? "0" : spec.shared_bytes)
    << ");\n"
    << "  " << spec.global;
  if (site_template_args) s << "<" << *site_template_args << ">";  // as the launch site writes them
  else if (!spec.template_args.empty()) s << "<" << spec.template_args << ">";
  s << "<<<kb_grid, dim3(block_x, block_y, block_z), kb_shared, kb_stream>>>(";
  for (size_t i = 0; i < spec.args.size(); ++i) s << (i ? ", " : "") << spec.args[i].name;
  s << ");\n"
    << "  return cudaGetLastError() == cudaSuccess ? 0 : 1;\n"
    << "}\n"
    << "}  // namespace kb_shim\n\n"
    << "extern \"C\" __attribute__((visibility(\"default\"))) int " << kEntrySymbol
    << "(void** a) { return kb_shim::launch(a); }\n";
  return s.str();
}

}  // namespace kb::profiler
