// [[kernel]] size_rules: read, validated with the field at fault, written back by `config show`.
#include <gtest/gtest.h>

#include "config/config_error.h"
#include "config/config_loader.h"
#include "config/config_writer.h"
#include "config/size_rule.h"

namespace kb::config {
namespace {

std::string saxpy_with(const std::string& extra, const std::string& sizes = "[{ n = 1024 }, { n = 4096 }]") {
  return R"([[kernel]]
name = "saxpy"
source = "saxpy.cu"
launcher = "launch_saxpy"
sizes = )" +
         sizes + "\n" + extra + R"(
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "n"
  role = "size"
  dtype = "int32"
  value = "n"
)";
}

std::vector<ConfigDiagnostic> rule_errors(const std::string& text) {
  try {
    load_config_text(text, "kernelbot.toml", "");
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << text;
  return {};
}

bool has_error_at_a_line(const std::vector<ConfigDiagnostic>& errs, const std::string& field, const std::string& text) {
  for (const auto& e : errs)
    if (e.field == field && e.message.find(text) != std::string::npos && e.file == "kernelbot.toml" && e.line > 0)
      return true;
  return false;
}

TEST(SizeRules, AreReadPerSizeName) {
  const Config c = load_config_text(saxpy_with("size_rules = { n = { multiple_of = 8, min = 64, max = 8192 } }"),
                                    "kernelbot.toml", "");
  ASSERT_EQ(c.kernels.size(), 1u);
  ASSERT_EQ(c.kernels[0].size_rules.count("n"), 1u);
  EXPECT_EQ(c.kernels[0].size_rules.at("n"), (SizeRule{8, 64, 8192}));
  const Config plain = load_config_text(saxpy_with(""), "kernelbot.toml", "");
  EXPECT_TRUE(plain.kernels[0].size_rules.empty());
}

TEST(SizeRules, DefaultsLeaveEveryPositiveSize) {
  const Config c = load_config_text(saxpy_with("size_rules = { n = { multiple_of = 4 } }"), "kernelbot.toml", "");
  EXPECT_EQ(c.kernels[0].size_rules.at("n"), (SizeRule{4, 1, 0}));
}

TEST(SizeRules, MistakesNameTheKernelAndKey) {
  auto errs = rule_errors(saxpy_with("size_rules = { n = 8 }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n", "expected a table"));
  errs = rule_errors(saxpy_with("size_rules = { n = { multiple = 8 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n.multiple", "unknown key 'multiple'"));
  errs = rule_errors(saxpy_with("size_rules = { n = { multiple_of = 0 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n.multiple_of", "greater than zero"));
  errs = rule_errors(saxpy_with("size_rules = { n = { min = -3 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n.min", "greater than zero"));
  errs = rule_errors(saxpy_with("size_rules = { n = { max = \"big\" } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n.max", "expected an integer"));
  errs = rule_errors(saxpy_with("size_rules = { n = { min = 5000, max = 100 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.n", "min = 5000 is above max = 100"));
  errs = rule_errors(saxpy_with("size_rules = { n = { multiple_of = 1000, min = 1001, max = 1999 } }"));
  EXPECT_TRUE(
      has_error_at_a_line(errs, "kernel[0].size_rules.n", "no value between min and max is a multiple of 1000"));
  errs = rule_errors(saxpy_with("size_rules = { m = { multiple_of = 2 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].size_rules.m", "no size set defines 'm'"));
}

TEST(SizeRules, ConfiguredSizesMustKeepTheirRule) {
  auto errs = rule_errors(saxpy_with("size_rules = { n = { multiple_of = 8 } }", "[{ n = 1024 }, { n = 1000003 }]"));
  EXPECT_TRUE(
      has_error_at_a_line(errs, "kernel[0].sizes[1].n", "n = 1000003 is not a multiple of 8 (kernel[0].size_rules.n)"));
  errs = rule_errors(saxpy_with("size_rules = { n = { max = 2000 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].sizes[1].n", "n = 4096 is above max = 2000"));
  errs = rule_errors(saxpy_with("size_rules = { n = { min = 2000 } }"));
  EXPECT_TRUE(has_error_at_a_line(errs, "kernel[0].sizes[0].n", "n = 1024 is below min = 2000"));
}

TEST(SizeRules, ConfigShowWritesThemBack) {
  const Config c = load_config_text(saxpy_with("size_rules = { n = { multiple_of = 8, min = 64, max = 8192 } }"),
                                    "kernelbot.toml", "");
  const Config again = load_config_text(to_toml_text(c), "shown.toml", "");
  EXPECT_EQ(again.kernels[0].size_rules, c.kernels[0].size_rules);
}

TEST(SizeRules, AllowedValues) {
  const SizeRule r{8, 64, 1000};
  EXPECT_TRUE(size_allowed(r, 64));
  EXPECT_TRUE(size_allowed(r, 1000));
  EXPECT_FALSE(size_allowed(r, 56));
  EXPECT_FALSE(size_allowed(r, 1008));
  EXPECT_FALSE(size_allowed(r, 65));
  EXPECT_EQ(size_rule_violation(r, 65), "is not a multiple of 8");
  EXPECT_EQ(size_rule_violation(r, 8), "is below min = 64");
  EXPECT_EQ(size_rule_violation(r, 1008), "is above max = 1000");
  EXPECT_EQ(first_allowed_from(r, 1), 64);
  EXPECT_EQ(first_allowed_from(r, 65), 72);
  EXPECT_EQ(first_allowed_from(r, 1001), std::nullopt);
  EXPECT_EQ(last_allowed_up_to(r, 5000), 1000);
  EXPECT_EQ(last_allowed_up_to(r, 999), 992);
  EXPECT_EQ(last_allowed_up_to(r, 63), std::nullopt);
  EXPECT_EQ(first_allowed_from(SizeRule{}, 1), 1);
}

}  // namespace
}  // namespace kb::config
