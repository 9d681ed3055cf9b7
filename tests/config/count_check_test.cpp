// A buffer's count is an element count the judge can lend at every size set: above zero, whole,
// its bytes within 64 bits. The loader reports one that is not at the count's own line.
#include "config/count_check.h"

#include <gtest/gtest.h>

#include "config/config_error.h"
#include "config/config_loader.h"

namespace kb::config {
namespace {

TEST(CountCheck, PositiveWholeCountsThatFitPass) {
  EXPECT_EQ(count_problem("n", DType::float32, {{"n", 1024}}), "");
  EXPECT_EQ(count_problem("rows*cols", DType::float64, {{"rows", 1 << 20}, {"cols", 1 << 20}}), "");
  EXPECT_EQ(count_problem("TODO", DType::float32, {}), "") << "listed as unfinished, not an error";
  EXPECT_EQ(count_problem("m", DType::float32, {{"n", 4}}), "") << "the undefined size is reported elsewhere";
  EXPECT_EQ(count_problem("n +", DType::float32, {{"n", 4}}), "") << "the syntax error is reported elsewhere";
}

TEST(CountCheck, NegativeZeroFractionalAndOverflowingCountsAreProblems) {
  EXPECT_NE(count_problem("n - 2048", DType::float32, {{"n", 1024}}).find("is negative (-1024)"), std::string::npos);
  EXPECT_NE(count_problem("n - 1024", DType::float32, {{"n", 1024}}).find("is 0 elements"), std::string::npos);
  EXPECT_NE(count_problem("n / 2.5", DType::float32, {{"n", 1024}}).find("not a whole number"), std::string::npos);
  EXPECT_NE(count_problem("n*n*n*n", DType::float32, {{"n", 70000}}).find("integer overflow"), std::string::npos);
  // 2^61 elements are representable, their 8-byte elements are not.
  EXPECT_EQ(count_problem("n*n*n", DType::int8, {{"n", 1 << 20}}), "");
  EXPECT_NE(count_problem("n*n*n", DType::float64, {{"n", 1 << 20}}).find("whose bytes overflow 64 bits"),
            std::string::npos);
}

TEST(CountCheck, TheLoaderNamesTheFieldAndTheCountsLineAtTheSizeSetThatFails) {
  const std::string text = R"([[kernel]]
name = "k"
source = "k.cu"
launcher = "launch_k"
sizes = [{ n = 4096 }, { n = 16 }]
  [[kernel.arg]]
  name = "x"
  role = "input"
  dtype = "float32"
  count = "n"
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n - 16"
)";
  try {
    load_config_text(text, "kernelbot.toml", "");
    FAIL() << "a zero count at n=16 must not load";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const ConfigDiagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.field, "kernel[0].arg[1].count");
    EXPECT_EQ(d.line, 15) << "the count's line, not the [[kernel.arg]] header's (11)";
    EXPECT_NE(d.message.find("at size set n=16"), std::string::npos) << d.message;
  }
}

TEST(CountCheck, EveryFieldOfAKernelKeepsItsPosition) {
  const std::string text = R"([[kernel]]
name = "k"
source = "k.cu"
launcher = "launch_k"
sizes = [{ n = 4096 }]
  [[kernel.arg]]
  name = "y"
  role = "output"
  dtype = "float32"
  count = "n"
)";
  const Config c = load_config_text(text, "kernelbot.toml", "");
  const KernelSpec& k = c.kernels.at(0);
  EXPECT_EQ(k.position_of("kernel[0].launcher", k.pos).line, 4);
  EXPECT_EQ(k.position_of("kernel[0].sizes[0]", k.pos).line, 5) << "an element: the array's line";
  EXPECT_EQ(k.position_of("kernel[0].arg[0].role", k.pos).line, 8);
  EXPECT_EQ(k.position_of("kernel[0].arg[0]", k.args[0].pos).line, 6) << "the argument itself: its header";
  EXPECT_EQ(k.position_of("kernel[0].arg", k.pos).line, 1) << "the arguments as a whole: the table's header";
}

}  // namespace
}  // namespace kb::config
