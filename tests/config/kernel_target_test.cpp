// Kernel targets ([[kernel]] global = "..."): what loads, and the errors that name the field.
#include "config/kernel_target.h"

#include <gtest/gtest.h>

#include "config/config_error.h"
#include "config/config_loader.h"
#include "config/config_writer.h"
#include "tests/config/config_diagnostics.h"

namespace kb::config {
namespace {

using test_support::errors_of;
using test_support::has_error;

std::string target(const std::string& fields, const std::string& extra_arg = "") {
  return "[[kernel]]\nname = \"gelu\"\nsource = \"ext.cu\"\n" + fields +
         "\nsizes = [{ n = 1000 }]\n"
         "  [[kernel.arg]]\n  name = \"out\"\n  role = \"output\"\n  dtype = \"float32\"\n  count = \"n\"\n"
         "  [[kernel.arg]]\n  name = \"n\"\n  role = \"size\"\n  dtype = \"int64\"\n  value = \"n\"\n" +
         extra_arg;
}

TEST(KernelTarget, LoadsWithItsLaunchExpressions) {
  Config c = load_config_text(target("global = \"gelu_kernel\"\ngrid = \"ceil_div(n, block_x)\"\nblock = 32\n"
                                     "shared_bytes = \"block_x * sizeof(float)\"\ntemplate_args = \"float, 4\""),
                              "kernelbot.toml", "");
  ASSERT_EQ(c.kernels.size(), 1u);
  const KernelSpec& k = c.kernels[0];
  EXPECT_TRUE(k.is_global());
  EXPECT_EQ(k.entry(), "gelu_kernel");
  EXPECT_EQ(k.launcher, "");
  EXPECT_EQ(k.grid, "ceil_div(n, block_x)");
  EXPECT_EQ(k.block, "32");
  EXPECT_EQ(k.shared_bytes, "block_x * sizeof(float)");
  EXPECT_EQ(k.template_args, "float, 4");
  // What `config show` writes loads back as the same target.
  Config again = load_config_text(to_toml_text(c), "again.toml", "");
  EXPECT_EQ(again.kernels[0].global, "gelu_kernel");
  EXPECT_EQ(again.kernels[0].grid, k.grid);
  EXPECT_EQ(again.kernels[0].template_args, k.template_args);
  EXPECT_EQ(again.kernels[0].launcher, "");
}

TEST(KernelTarget, ExactlyOneOfLauncherAndGlobal) {
  auto both = errors_of(target("launcher = \"launch\"\nglobal = \"k\"\ngrid = \"1\"\nblock = \"32\""));
  EXPECT_TRUE(has_error(both, "kernel[0].global", "either 'launcher'")) << both.front().format();
  EXPECT_EQ(both.front().line, 5) << "at the global key";
  auto neither = errors_of(target(""));
  EXPECT_TRUE(has_error(neither, "kernel[0].launcher", "missing required field 'launcher'"));
  EXPECT_TRUE(has_error(neither, "kernel[0].launcher", "or 'global'"));
}

TEST(KernelTarget, NeedsGridAndBlockOfOneToThreeComponents) {
  auto errs = errors_of(target("global = \"k\"\nblock = \"1, 2, 3, 4\""));
  EXPECT_TRUE(has_error(errs, "kernel[0].grid", "missing required field 'grid'"));
  EXPECT_TRUE(has_error(errs, "kernel[0].block", "expected 1-3 components"));
  auto empty = errors_of(target("global = \"k\"\ngrid = \"n, \"\nblock = \"32\""));
  EXPECT_TRUE(has_error(empty, "kernel[0].grid", "a component is empty"));
  // Commas inside brackets do not split: min(a, b) is one component.
  EXPECT_EQ(launch_components("ceil_div(n, block_x), min(rows, 65535)").size(), 2u);
  EXPECT_EQ(launch_components(" 16 , 16 ")[1], "16");
  EXPECT_TRUE(launch_components("  ").empty());
}

TEST(KernelTarget, LaunchComponentsKeepEmptyOnesAndWholeBrackets) {
  // An empty component stays, so that the check above can say so; brackets of every kind and
  // depth keep their commas, and each component is trimmed.
  EXPECT_EQ(launch_components("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(launch_components("n, "), (std::vector<std::string>{"n", ""}));
  EXPECT_EQ(launch_components(" f(a, g(b, c)) , {x, [y, z]}"),
            (std::vector<std::string>{"f(a, g(b, c))", "{x, [y, z]}"}));
}

TEST(KernelTarget, LaunchFieldsBelongToKernelTargets) {
  auto errs = errors_of(target("launcher = \"launch\"\nblock = \"256\""));
  EXPECT_TRUE(has_error(errs, "kernel[0].block", "applies to kernel targets"));
}

TEST(KernelTarget, NoStreamArgumentAndArgumentsAreIdentifiers) {
  auto errs = errors_of(target("global = \"k\"\ngrid = \"n\"\nblock = \"32\"",
                               "  [[kernel.arg]]\n  name = \"stream\"\n  role = \"stream\"\n"
                               "  [[kernel.arg]]\n  name = \"block_x\"\n  role = \"scalar\"\n  dtype = \"int32\"\n"));
  EXPECT_TRUE(has_error(errs, "kernel[0].arg[2].role", "takes no stream argument"));
  EXPECT_TRUE(has_error(errs, "kernel[0].arg[3].name", "'block_x' cannot name an argument"));
  KernelSpec k;
  k.global = "k";
  k.grid = "1";
  k.block = "32";
  ArgSpec a;
  a.name = "x[0]";
  a.role = ArgRole::output;
  k.args = {a};
  auto problems = kernel_target_problems(k);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "arg[0].name");
  k.args[0].name = "a";  // a common kernel parameter name stays usable
  EXPECT_TRUE(kernel_target_problems(k).empty());
}

TEST(KernelTarget, ExpressionReadsWholeNames) {
  EXPECT_TRUE(expression_reads("ceil_div(n, block_x)", "block_x"));
  EXPECT_FALSE(expression_reads("ceil_div(n, block_xy)", "block_x"));
  EXPECT_FALSE(expression_reads("my_block_x", "block_x"));
}

}  // namespace
}  // namespace kb::config
