// Bad values a new user wrote and the loader used to accept: each is now an error at its own line
// and field (config/value_rules.h), and the value a real config uses still loads. Table-driven:
// each case is one edit of a valid file, the field the error names, a fragment of its message,
// and the text of the line it must point at.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/config_error.h"
#include "config/config_loader.h"
#include "config/value_rules.h"

namespace fs = std::filesystem;

namespace kb::config {
namespace {

// A repository with what the valid file names: a source, an include directory, an extra source
// and a compile database.
class ValueRules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("kb_value_rules_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "src");
    fs::create_directories(root_ / "include");
    fs::create_directories(root_ / "build");
    std::ofstream(root_ / "src/scale.cu") << "// scale\n";
    std::ofstream(root_ / "src/extra.cu") << "// extra\n";
    std::ofstream(root_ / "build/compile_commands.json") << "[]\n";
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  static fs::path root_;
};
fs::path ValueRules::root_;

// {{NAME}} and the other markers are replaced by a case's values; the defaults make a valid file.
const char* kTemplate = R"([llm]
base_url = {{BASE_URL}}

[github]
api_url = {{API_URL}}

[project]
include_dirs = [{{INCLUDE_DIR}}]
extra_sources = [{{EXTRA}}]
compile_commands = {{DB}}
{{PROJECT}}

[[kernel]]
name = {{NAME}}
source = "src/scale.cu"
{{TARGET}}
sizes = [{ n = {{N}} }]
{{KERNEL}}
  [[kernel.arg]]
  name = "x"
  role = "inout"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = {{N_DTYPE}}
  value = {{N_VALUE}}
{{ARG}}
)";

using Edits = std::vector<std::pair<std::string, std::string>>;

std::string config_text(const Edits& edits) {
  Edits values = {{"BASE_URL", "\"https://api.openai.com/v1\""},
                  {"API_URL", "\"https://api.github.com\""},
                  {"INCLUDE_DIR", "\"include\""},
                  {"EXTRA", "\"src/extra.cu\""},
                  {"DB", "\"build/compile_commands.json\""},
                  {"PROJECT", ""},
                  {"NAME", "\"scale\""},
                  {"TARGET", "launcher = \"launch_scale\""},
                  {"N", "1024"},
                  {"KERNEL", ""},
                  {"N_DTYPE", "\"int32\""},
                  {"N_VALUE", "\"n\""},
                  {"ARG", ""}};
  for (const auto& [key, value] : edits)
    for (auto& v : values)
      if (v.first == key) v.second = value;
  std::string text = kTemplate;
  for (const auto& [key, value] : values)
    for (size_t at = text.find("{{" + key + "}}"); at != std::string::npos; at = text.find("{{" + key + "}}"))
      text.replace(at, key.size() + 4, value);
  return text;
}

// A kernel target (global = ...) with its launch written as given.
Edits kernel_target(const std::string& block, const std::string& grid = "\"ceil_div(n, block_x)\"",
                    const std::string& shared = "") {
  return {{"TARGET", "global = \"scale_kernel\"\ngrid = " + grid + "\nblock = " + block +
                         (shared.empty() ? "" : "\nshared_bytes = " + shared)}};
}

Edits with(Edits edits, const Edits& more) {
  edits.insert(edits.end(), more.begin(), more.end());
  return edits;
}

struct BadCase {
  std::string what;
  Edits edits;
  std::string field;     // the diagnostic's field
  std::string fragment;  // a part of its message
  std::string at_line;   // the text of the line it points at
};

int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return -1;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::vector<BadCase> bad_cases() {
  return {
      // Kernel names: one file name and one git ref component.
      {"path traversal", {{"NAME", "\"../../../tmp/evil\""}}, "kernel[0].name", "must start with a letter", "name ="},
      {"empty name", {{"NAME", "\"\""}}, "kernel[0].name", "must not be empty", "name ="},
      {"unicode and space", {{"NAME", "\"relu\u2713 fast\""}}, "kernel[0].name", "outside ASCII", "name ="},
      {"space", {{"NAME", "\"relu fast\""}}, "kernel[0].name", "contains ' '", "name ="},
      {"slash", {{"NAME", "\"ops/relu\""}}, "kernel[0].name", "contains '/'", "name ="},
      {"qualified", {{"NAME", "\"ops::relu\""}}, "kernel[0].name", "contains ':'", "name ="},
      {"template", {{"NAME", "\"relu<float>\""}}, "kernel[0].name", "contains '<'", "name ="},
      {"double dot", {{"NAME", "\"relu..v2\""}}, "kernel[0].name", "\"..\"", "name ="},
      {"lock suffix", {{"NAME", "\"relu.lock\""}}, "kernel[0].name", ".lock", "name ="},
      {"trailing dot", {{"NAME", "\"relu.\""}}, "kernel[0].name", "ends in '.'", "name ="},
      {"leading dash", {{"NAME", "\"-relu\""}}, "kernel[0].name", "must start with a letter", "name ="},
      {"leading digit", {{"NAME", "\"2relu\""}}, "kernel[0].name", "must start with a letter", "name ="},
      {"too long", {{"NAME", "\"" + std::string(101, 'k') + "\""}}, "kernel[0].name", "at most 100", "name ="},
      {"tilde", {{"NAME", "\"relu~1\""}}, "kernel[0].name", "contains '~'", "name ="},
      {"colon", {{"NAME", "\"relu:v\""}}, "kernel[0].name", "contains ':'", "name ="},
      // Sizes and values within the parameter's C++ type.
      {"size over int", {{"N", "3000000000"}}, "kernel[0].arg[1].value", "outside the range of int32", "value = \"n\""},
      {"negative size value", {{"N_VALUE", "\"-5\""}}, "kernel[0].arg[1].value", "cannot be negative", "value = \"-5\""},
      {"negative literal size", {{"N_VALUE", "-1"}}, "kernel[0].arg[1].value", "cannot be negative", "value = -1"},
      {"size expression negative",
       {{"N_VALUE", "\"n - 2048\""}},
       "kernel[0].arg[1].value",
       "cannot be negative",
       "value = \"n - 2048\""},
      {"over uint32",
       {{"N_DTYPE", "\"uint32\""}, {"N", "5000000000"}},
       "kernel[0].arg[1].value",
       "uint32",
       "value = \"n\""},
      {"over int8",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"int8\"\n  value = 300\n"}},
       "kernel[0].arg[2].value",
       "int8",
       "value = 300"},
      {"negative uint8",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"uint8\"\n  value = -1\n"}},
       "kernel[0].arg[2].value",
       "uint8",
       "value = -1"},
      {"negative uint32 scalar",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"uint32\"\n  value = -7\n"}},
       "kernel[0].arg[2].value",
       "uint32",
       "value = -7"},
      {"int32 scalar product",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"int32\"\n  value = \"n * n * n\"\n"},
        {"N", "4096"}},
       "kernel[0].arg[2].value",
       "int32",
       "value = \"n * n * n\""},
      {"float16 scalar",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"float16\"\n  value = 70000.0\n"}},
       "kernel[0].arg[2].value",
       "float16",
       "value = 70000.0"},
      {"float32 scalar",
       {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = \"float32\"\n  value = 1e39\n"}},
       "kernel[0].arg[2].value",
       "float32",
       "value = 1e39"},
      // Literal launches of a kernel target within the device's limits.
      {"block 0", kernel_target("\"0\""), "kernel[0].block", "1 to 1024", "block ="},
      {"block 4096", kernel_target("\"4096\""), "kernel[0].block", "1 to 1024", "block ="},
      {"block integer 2048", kernel_target("2048"), "kernel[0].block", "1 to 1024", "block ="},
      {"block product", kernel_target("\"64, 32\""), "kernel[0].block", "2048 threads", "block ="},
      {"block z", kernel_target("\"1, 1, 128\""), "kernel[0].block", "z: 64", "block ="},
      {"block negative", kernel_target("\"-32\""), "kernel[0].block", "1 to 1024", "block ="},
      {"grid 0", kernel_target("\"256\"", "\"0\""), "kernel[0].grid", "1 to 2147483647", "grid ="},
      {"grid y", kernel_target("\"256\"", "\"1, 70000\""), "kernel[0].grid", "1 to 65535", "grid ="},
      {"grid x 2^31", kernel_target("\"256\"", "\"2147483648\""), "kernel[0].grid", "1 to 2147483647", "grid ="},
      {"shared -1", kernel_target("\"256\"", "\"ceil_div(n, block_x)\"", "\"-1\""), "kernel[0].shared_bytes", "227 KiB",
       "shared_bytes ="},
      {"shared 1 MiB", kernel_target("\"256\"", "\"ceil_div(n, block_x)\"", "1048576"), "kernel[0].shared_bytes",
       "227 KiB", "shared_bytes ="},
      // Paths that must exist, each at its item.
      {"extra_sources missing",
       {{"EXTRA", "\"src/missing.cu\""}},
       "project.extra_sources[0]",
       "file not found",
       "extra_sources ="},
      {"include_dirs missing",
       {{"INCLUDE_DIR", "\"inc\""}},
       "project.include_dirs[0]",
       "directory not found",
       "include_dirs ="},
      {"include_dirs a file",
       {{"INCLUDE_DIR", "\"src/scale.cu\""}},
       "project.include_dirs[0]",
       "not a directory",
       "include_dirs ="},
      {"second include dir",
       {{"INCLUDE_DIR", "\"include\", \"nope\""}},
       "project.include_dirs[1]",
       "directory not found",
       "include_dirs ="},
      {"compile_commands missing",
       {{"DB", "\"build/nope.json\""}},
       "project.compile_commands",
       "file not found",
       "compile_commands ="},
      {"kernel extra_sources",
       {{"KERNEL", "extra_sources = [\"gone.cu\"]"}},
       "kernel[0].extra_sources[0]",
       "file not found",
       "extra_sources = [\"gone.cu\"]"},
      {"kernel include_dirs",
       {{"KERNEL", "include_dirs = [\"gone\"]"}},
       "kernel[0].include_dirs[0]",
       "directory not found",
       "include_dirs = [\"gone\"]"},
      // URLs that parse.
      {"base_url not a url", {{"BASE_URL", "\"not a url\""}}, "llm.base_url", "is not a URL", "base_url ="},
      {"base_url ftp", {{"BASE_URL", "\"ftp://example.com/v1\""}}, "llm.base_url", "scheme 'ftp'", "base_url ="},
      {"base_url no host", {{"BASE_URL", "\"https:///v1\""}}, "llm.base_url", "no host", "base_url ="},
      {"base_url space", {{"BASE_URL", "\"https://api.openai.com/v1 \""}}, "llm.base_url", "white space", "base_url ="},
      {"base_url bad port", {{"BASE_URL", "\"http://localhost:99999/v1\""}}, "llm.base_url", "port", "base_url ="},
      {"base_url no scheme", {{"BASE_URL", "\"api.openai.com/v1\""}}, "llm.base_url", "is not a URL", "base_url ="},
      {"api_url", {{"API_URL", "\"github.com\""}}, "github.api_url", "is not a URL", "api_url ="},
      // Architectures nvcc knows.
      {"cuda_arch banana",
       {{"PROJECT", "cuda_arch = \"banana\""}},
       "project.cuda_arch",
       "not a GPU architecture",
       "cuda_arch ="},
      {"cuda_arch sm_99",
       {{"PROJECT", "cuda_arch = \"sm_99\""}},
       "project.cuda_arch",
       "no code generator",
       "cuda_arch ="},
      {"cuda_arch 35", {{"PROJECT", "cuda_arch = \"35\""}}, "project.cuda_arch", "no code generator", "cuda_arch ="},
      {"cuda_arch native", {{"PROJECT", "cuda_arch = \"native\""}}, "project.cuda_arch", "nvcc keyword", "cuda_arch ="},
      {"cuda_arch sm_80a",
       {{"PROJECT", "cuda_arch = \"sm_80a\""}},
       "project.cuda_arch",
       "begin with sm_90a",
       "cuda_arch ="},
      {"cuda_arch sm_90f",
       {{"PROJECT", "cuda_arch = \"sm_90f\""}},
       "project.cuda_arch",
       "begin with sm_100f",
       "cuda_arch ="},
      {"target_archs sm_99",
       {{"PROJECT", "target_archs = [\"sm_90\", \"sm_99\"]"}},
       "project.target_archs[1]",
       "no code generator",
       "target_archs ="},
  };
}

TEST_F(ValueRules, EachBadValueIsAnErrorAtItsFieldAndLine) {
  const auto cases = bad_cases();
  EXPECT_GE(cases.size(), 55u);
  for (const auto& c : cases) {
    const std::string text = config_text(c.edits);
    std::vector<ConfigDiagnostic> errors;
    try {
      load_config_text(text, "kernelbot.toml", root_);
      ADD_FAILURE() << c.what << ": loaded without an error:\n" << text;
      continue;
    } catch (const ConfigError& e) {
      errors = e.diagnostics();
    }
    bool found = false;
    for (const auto& e : errors)
      if (e.field == c.field && e.message.find(c.fragment) != std::string::npos) {
        found = true;
        EXPECT_EQ(e.line, line_of(text, c.at_line)) << c.what << ": " << e.format();
        EXPECT_EQ(e.file, "kernelbot.toml") << c.what;
      }
    std::string all;
    for (const auto& e : errors) all += "  " + e.format() + "\n";
    EXPECT_TRUE(found) << c.what << ": no error about " << c.field << " saying '" << c.fragment << "'; got:\n" << all;
  }
}

TEST_F(ValueRules, TheValuesRealConfigsUseStillLoad) {
  const std::vector<Edits> good = {
      {},
      {{"NAME", "\"vector_add\""}},
      {{"NAME", "\"gemm.v2\""}},
      {{"NAME", "\"relu-fast\""}},
      {{"NAME", "\"_private\""}},
      {{"NAME", "\"Layernorm_2\""}},
      {{"N", "2147483647"}},
      {{"N_DTYPE", "\"int64\""}, {"N", "3000000000"}},
      {{"N_DTYPE", "\"uint32\""}, {"N", "4000000000"}},
      {{"BASE_URL", "\"http://localhost:8080/v1\""}},
      {{"BASE_URL", "\"https://my.azure.com/openai/deployments/x?api-version=2024-10-21\""}},
      {{"BASE_URL", "\"http://[::1]:8000/v1\""}},
      {{"BASE_URL", "\"http://127.0.0.1:11434/v1\""}},
      {{"DB", "\"build\""}},
      {{"DB", "\"auto\""}},
      {{"DB", "\"none\""}},
      {{"PROJECT", "cuda_arch = \"90a\""}},
      {{"PROJECT", "cuda_arch = \"sm_100f\""}},
      {{"PROJECT", "cuda_arch = \"compute_86\""}},
      {{"PROJECT", "cuda_arch = \"8.6\""}},
      {{"PROJECT", "cuda_arch = \"sm_120\""}},
      kernel_target("\"256\""),
      kernel_target("\"32, 32\""),
      kernel_target("\"16, 16, 4\"", "\"ceil_div(n, 256), 65535, 1\"", "49152"),
      kernel_target("\"1024\"", "\"2147483647\"", "\"232448\""),
      kernel_target("\"min(n, 256)\"", "\"n / block_x\"", "\"n * 4\""),  // names: judged by the shim at run time
      with(kernel_target("\"256\""), {{"ARG", "  [[kernel.arg]]\n  name = \"k\"\n  role = \"scalar\"\n  dtype = "
                                              "\"float32\"\n  value = -1.5\n"}}),
  };
  for (const auto& edits : good) {
    const std::string text = config_text(edits);
    try {
      load_config_text(text, "kernelbot.toml", root_);
    } catch (const ConfigError& e) {
      std::string all;
      for (const auto& d : e.diagnostics()) all += "  " + d.format() + "\n";
      ADD_FAILURE() << "rejected:\n" << text << "\n" << all;
    }
  }
}

TEST(ValueRulesFunctions, SayWhyOrNothing) {
  EXPECT_EQ(kernel_name_problem("saxpy"), "");
  EXPECT_NE(kernel_name_problem("a b"), "");
  EXPECT_EQ(url_problem("https://api.github.com"), "");
  EXPECT_NE(url_problem("https://"), "");
  EXPECT_EQ(gpu_arch_problem("sm_90"), "");
  EXPECT_NE(gpu_arch_problem("sm_9"), "");
  ArgSpec size;
  size.role = ArgRole::size;
  size.dtype = DType::int32;
  size.value = "m";  // no size set defines it: the loader says so, not this rule
  EXPECT_EQ(value_range_problem(size, {{"n", 1}}), "");
  size.value = "n";
  EXPECT_EQ(value_range_problem(size, {{"n", 2147483647}}), "");
  EXPECT_NE(value_range_problem(size, {{"n", 2147483648}}), "");
}

TEST(ValueRulesFunctions, UnmatchedIgnoreIsAWarningWithItsLine) {
  const Config c = load_config_text(
      "[github]\nignore_kernels = [\"scale\", \"sclae\"]\n\n[[kernel]]\nname = \"scale\"\nsource = \"a.cu\"\n"
      "launcher = \"launch_scale\"\n  [[kernel.arg]]\n  name = \"y\"\n  role = \"output\"\n  dtype = \"float32\"\n"
      "  count = 4\n",
      "kernelbot.toml", "");
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].field, "github.ignore_kernels[1]");
  EXPECT_EQ(c.warnings[0].line, 2);
  EXPECT_NE(c.warnings[0].message.find("'sclae' names no [[kernel]]"), std::string::npos);
  EXPECT_NE(c.warnings[0].message.find("scale"), std::string::npos);
}

}  // namespace
}  // namespace kb::config
