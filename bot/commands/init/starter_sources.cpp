#include "bot/commands/init/starter_sources.h"

#include <algorithm>
#include <set>

#include "bot/onboarding/symbol_origin.h"
#include "config/kernel_target.h"
#include "cuda_source/reading/include_dirs_guess.h"
#include "cuda_source/tokens/code_tokens.h"
#include "cuda_source/tokens/preprocessor_directives.h"

namespace kb::bot {
namespace fs = std::filesystem;
namespace {

using cuda_source::CodeToken;

bool is_translation_unit(const std::string& file) {
  const std::string ext = fs::path(file).extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".cxx";
}

// One file-scope statement ending in ';' (not inside a function body or a type).
struct Statement {
  std::vector<CodeToken> tokens;
};

std::vector<Statement> file_scope_statements(const std::string& text) {
  std::vector<Statement> out;
  std::vector<bool> scopes;  // each open brace: whether it is a namespace or extern "C" block
  std::vector<CodeToken> current;
  auto file_scope = [&] { return std::all_of(scopes.begin(), scopes.end(), [](bool ns) { return ns; }); };
  for (const auto& tok : cuda_source::tokenize_code(text)) {
    if (!file_scope()) {
      if (tok.text == "{") scopes.push_back(false);
      else if (tok.text == "}") scopes.pop_back();
      if (file_scope()) current.clear();
      continue;
    }
    if (tok.text == "{") {
      scopes.push_back(!current.empty() && (current.front().text == "namespace" ||
                                            (current.front().text == "extern" && current.size() == 1)));
      current.clear();
    } else if (tok.text == "}") {
      if (!scopes.empty()) scopes.pop_back();
      current.clear();
    } else if (tok.text == ";") {
      if (!current.empty()) out.push_back({current});
      current.clear();
    } else {
      current.push_back(tok);
    }
  }
  return out;
}

bool has_token(const Statement& s, const char* text) {
  return std::any_of(s.tokens.begin(), s.tokens.end(), [&](const CodeToken& t) { return t.text == text; });
}

// The name a declaration-only statement declares: a prototype's function (`void f(int);`) or an
// `extern` variable; empty for anything else (a definition, a typedef, a template).
std::string declared_only(const Statement& s) {
  static const std::set<std::string> not_declarations = {"typedef", "using", "template",      "struct", "class",
                                                         "enum",    "union", "static_assert", "friend", "return"};
  if (s.tokens.empty() || not_declarations.count(s.tokens.front().text) || has_token(s, "=")) return "";
  const bool is_extern = s.tokens.front().text == "extern" && !(s.tokens.size() > 1 && s.tokens[1].text[0] == '"');
  for (size_t i = 0; i + 1 < s.tokens.size(); ++i)
    if (s.tokens[i].kind == CodeToken::identifier && s.tokens[i + 1].text == "(")
      return s.tokens[i].text == "__launch_bounds__" || s.tokens[i].text == "__align__" ? "" : s.tokens[i].text;
  if (!is_extern) return "";
  std::string last;
  for (const auto& t : s.tokens) {
    if (t.text == "[") break;
    if (t.kind == CodeToken::identifier) last = t.text;
  }
  return last;
}

int count_identifier(const std::string& text, const std::string& name) {
  int n = 0;
  for (const auto& t : cuda_source::tokenize_code(text)) n += t.kind == CodeToken::identifier && t.text == name;
  return n;
}

std::string line_text(const std::string& text, int line) {
  size_t at = 0;
  for (int l = 1; l < line && at != std::string::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos) return "";
  std::string out = text.substr(at, text.find('\n', at) - at);
  out.erase(0, out.find_first_not_of(" \t"));
  return out;
}

// The quoted headers `file` includes, transitively (a few dozen at most), with their texts.
std::vector<std::string> included_headers(const std::string& file, const fs::path& root,
                                          const std::vector<std::string>& include_dirs, const SourceTextOf& text_of) {
  std::vector<std::string> out, pending = {file};
  std::set<std::string> seen = {file};
  while (!pending.empty() && seen.size() < 64) {
    const std::string current = pending.back();
    pending.pop_back();
    const std::string& text = text_of(current);
    for (const auto& d : cuda_source::read_directives(text)) {
      const std::string included = cuda_source::quoted_include(text, d);
      if (included.empty()) continue;
      auto found = cuda_source::resolve_quoted_include(root, root / current, included, include_dirs);
      if (!found) continue;
      const std::string rel = found->lexically_relative(root).lexically_normal().string();
      if (seen.insert(rel).second) {
        out.push_back(rel);
        pending.push_back(rel);
      }
    }
  }
  return out;
}

}  // namespace

SourceNeeds source_needs(const std::string& file, const cuda_source::ScannedKernel* kernel, const fs::path& root,
                         const std::vector<std::string>& files, const std::vector<std::string>& include_dirs,
                         const SourceTextOf& text_of) {
  SourceNeeds out;
  const std::string& source = text_of(file);
  const std::vector<std::string> headers = included_headers(file, root, include_dirs, text_of);
  // Declared (in the file or its headers), used by the file, defined in neither.
  std::vector<std::string> declaring = {file}, wanted;
  declaring.insert(declaring.end(), headers.begin(), headers.end());
  for (const auto& f : declaring)
    for (const auto& s : file_scope_statements(text_of(f))) {
      const std::string name = declared_only(s);
      if (name.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end()) continue;
      if (count_identifier(source, name) < (f == file ? 2 : 1)) continue;  // declared, never used
      wanted.push_back(name);
    }
  for (const auto& name : wanted) {
    bool defined_here = !find_definitions(source, name).lines.empty();
    for (const auto& h : headers) defined_here = defined_here || !find_definitions(text_of(h), name).lines.empty();
    if (defined_here) continue;
    for (const auto& other : files) {
      if (other == file || !is_translation_unit(other)) continue;
      const std::string& text = text_of(other);
      if (text.find(name) == std::string::npos) continue;
      const FileDefinitions found = find_definitions(text, name);
      if (found.lines.empty()) continue;
      NeededDefinition d{name, other, found.lines.front().first, line_text(text, found.lines.front().first)};
      if (found.has_main) {
        out.program_globals.push_back(d);
      } else {
        if (std::find(out.extra_sources.begin(), out.extra_sources.end(), other) == out.extra_sources.end())
          out.extra_sources.push_back(other);
        out.from_extra_sources.push_back(d);
      }
      break;
    }
  }
  if (!kernel) return out;
  // The kernel's own file's __device__/__constant__ variables that its body reads.
  const std::string& kernel_text = text_of(kernel->file);
  const std::string body = kernel_text.substr(kernel->begin, kernel->end - kernel->begin);
  for (const auto& s : file_scope_statements(kernel_text)) {
    if (!has_token(s, "__device__") && !has_token(s, "__constant__")) continue;
    bool function = false;  // a prototype: `__device__ float load(float*, int);`
    for (const auto& t : s.tokens) {
      if (t.text == "=" || t.text == "[") break;
      function = function || t.text == "(";
    }
    if (function) continue;
    std::string name;
    for (const auto& t : s.tokens) {
      if (t.text == "=" || t.text == "[") break;
      if (t.kind == CodeToken::identifier) name = t.text;
    }
    if (name.empty() || !config::expression_reads(body, name)) continue;
    DeviceGlobal g;
    g.name = name;
    g.line = cuda_source::line_of(kernel_text, s.tokens.front().begin);
    g.declaration = line_text(kernel_text, g.line);
    for (const auto& t : cuda_source::tokenize_code(kernel_text)) {
      if (t.kind != CodeToken::identifier || !t.text.starts_with("cudaMemcpyToSymbol")) continue;
      const int at = cuda_source::line_of(kernel_text, t.begin);
      const std::string text = line_text(kernel_text, at);
      if (config::expression_reads(text, name))
        g.set_at.push_back(kernel->file + ":" + std::to_string(at) + ": " + text);
    }
    out.device_globals.push_back(g);
  }
  return out;
}

std::string setup_stub(const std::string& name, const std::string& source, const cuda_source::ScannedKernel* kernel,
                       const SourceNeeds& needs) {
  std::string out = "// The one-time setup of kernel target \"" + name + "\" (" + source +
                    "), written by `kernelbot init`, which never\n"
                    "// overwrites it. kb_setup() runs once when a variant library is loaded, before any call: it sets\n"
                    "// what the program's main() sets and the harness does not. Fill in each TODO, then run\n"
                    "// `kernelbot check --compile`.\n"
                    "#include <cuda.h>\n#include <cuda_runtime.h>\n\n";
  for (const auto& g : needs.program_globals)
    out += "// " + g.name + " is defined at " + g.file + ":" + std::to_string(g.line) +
           ", beside a main() (a program cannot be an extra\n// source): defined here instead. TODO: its type's "
           "header, if it needs one.\n" +
           g.text + "\n\n";
  const bool device = !needs.device_globals.empty() && kernel;
  if (device) {
    const bool templated = !kernel->template_params.empty();
    const std::string name_of_kernel = cuda_source::unqualified_name(kernel->name);
    out += "// The kernel, defined in " + kernel->file + ":" + std::to_string(kernel->line) + ".\n";
    if (templated) out += "template <" + kernel->template_params + ">\n";
    std::string params;
    for (const auto& p : kernel->params) params += (params.empty() ? "" : ", ") + p.type + " " + p.name;
    out += "__global__ void " + name_of_kernel + "(" + params + ");\n\n";
    out += R"(namespace {
// A driver API function, through the runtime (nothing more to link).
template <class F>
F driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<F>(function);
}

// The device address and size of `symbol`, a variable of the kernel's file: without relocatable
// device code that file keeps its __device__ and __constant__ variables to itself, so they are
// found by name in the kernel's module.
int device_global(const char* symbol, void** address, size_t* bytes) {
  using GetModule = CUresult (*)(CUmodule*, CUfunction);
  using GetGlobal = CUresult (*)(CUdeviceptr*, size_t*, CUmodule, const char*);
  const auto get_module = driver_function<GetModule>("cuFuncGetModule");
  const auto get_global = driver_function<GetGlobal>("cuModuleGetGlobal");
  cudaFunction_t kernel;
  CUmodule module;
  CUdeviceptr found;
  if (!get_module || !get_global) return 1;
)";
    out += "  if (cudaGetFuncBySymbol(&kernel, reinterpret_cast<const void*>(&" + name_of_kernel +
           (templated ? "<TODO>" : "") + ")) != cudaSuccess) return 1;" +
           (templated ? "  // TODO: the template arguments launched" : "") + "\n";
    out += R"(  if (get_module(&module, reinterpret_cast<CUfunction>(kernel)) != CUDA_SUCCESS) return 1;
  if (get_global(&found, bytes, module, symbol) != CUDA_SUCCESS) return 1;
  *address = reinterpret_cast<void*>(found);
  return 0;
}
}  // namespace

)";
  }
  out += "extern \"C\" int kb_setup(void) {\n";
  for (const auto& g : needs.program_globals) out += "  // TODO: set " + g.name + " as main() does in " + g.file + "\n";
  if (device) out += "  void* address;\n  size_t bytes;\n";
  for (const auto& g : needs.device_globals) {
    if (!device) break;
    out += "  // " + g.name + ": `" + g.declaration + "` (" + kernel->file + ":" + std::to_string(g.line) + ")\n";
    for (const auto& s : g.set_at) out += "  //   main() sets it at " + s + "\n";
    out += "  if (device_global(\"" + g.name + "\", &address, &bytes) != 0) return 1;\n" +
           "  // TODO: the value main() gives " + g.name +
           " (bytes of it), e.g.\n"
           "  //   static const float value[] = {...};\n"
           "  //   if (cudaMemcpy(address, value, bytes, cudaMemcpyHostToDevice) != cudaSuccess) return 1;\n";
  }
  out += "  return 0;\n}\n";
  return out;
}

}  // namespace kb::bot
