// A reference that proves nothing (reference_check.h): an output the original never writes, or
// writes only NaN and Inf, is an error naming it; a constant one is a warning.
#include "profiler/judge/outputs/reference_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "profiler/judge/inputs/dtype_codec.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

TEST(ReferenceCheck, AnOutputTheOriginalNeverWroteProvesNothing) {
  std::vector<float> y(1000);
  fill_poison(DType::float32, y.data(), y.size());
  const ReferenceFinding f = check_reference(DType::float32, ArgRole::output, "y", "n=1000", y.data(), y.size());
  EXPECT_THAT(f.error, HasSubstr("the original's output y at size n=1000 holds the judge's poison in all 1000"));
  EXPECT_THAT(f.error, HasSubstr("is an \"input\""));
}

TEST(ReferenceCheck, AnOutputOfNanAndInfOnlyProvesNothing) {
  std::vector<float> y(64, std::numeric_limits<float>::quiet_NaN());
  y[3] = std::numeric_limits<float>::infinity();
  const ReferenceFinding f = check_reference(DType::float32, ArgRole::output, "y", "n=64", y.data(), y.size());
  EXPECT_THAT(f.error, HasSubstr("holds no finite value in the 64 elements it wrote"));
}

TEST(ReferenceCheck, PartlyWrittenOrPartlyFiniteOutputsAreFine) {
  std::vector<float> y(64);
  fill_poison(DType::float32, y.data(), y.size());
  for (int i = 0; i < 8; ++i) y[i] = 0.5f * static_cast<float>(i);  // a masked kernel writes some rows only
  EXPECT_EQ(check_reference(DType::float32, ArgRole::output, "y", "n=64", y.data(), y.size()).error, "");
  std::vector<float> z(64, std::numeric_limits<float>::quiet_NaN());
  z[10] = 1.5f;  // a softmax's -inf rows are NaN; one row with a number is enough
  EXPECT_EQ(check_reference(DType::float32, ArgRole::output, "z", "n=64", z.data(), z.size()).error, "");
}

TEST(ReferenceCheck, AConstantOutputIsAWarningNotAnError) {
  std::vector<float> mask(256, 1.0f);
  const ReferenceFinding f = check_reference(DType::float32, ArgRole::output, "mask", "n=256", mask.data(),
                                             mask.size());
  EXPECT_EQ(f.error, "");
  EXPECT_THAT(f.warning, HasSubstr("is 1 at every element it wrote (256)"));
  std::vector<float> few(4, 1.0f);  // a handful of equal values says nothing
  EXPECT_EQ(check_reference(DType::float32, ArgRole::output, "s", "n=4", few.data(), few.size()).warning, "");
}

TEST(ReferenceCheck, AnInoutBufferIsNeverReadAsPoisonAndIntegersNeedNoFiniteValue) {
  std::vector<int32_t> ids(100);
  for (int i = 0; i < 100; ++i) ids[static_cast<size_t>(i)] = i;
  EXPECT_EQ(check_reference(DType::int32, ArgRole::inout, "ids", "n=100", ids.data(), ids.size()).error, "");
}

}  // namespace
}  // namespace kb::judge
