// The warning for an output whose check cannot fail near zero: its reference never exceeds atol.
#include "profiler/judge/outputs/tolerance_warning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "profiler/judge/outputs/output_comparator.h"

namespace kb::judge {
namespace {

using ::testing::HasSubstr;

OutputError output(double max_reference, double atol) {
  OutputError o;
  o.name = "out";
  o.dtype = "float32";
  o.rtol = 1e-4;
  o.atol = atol;
  o.elements = 1024;
  o.max_reference = max_reference;
  return o;
}

TEST(ToleranceWarning, AReferenceBelowAtolIsNamedWithBothNumbersAndTheFix) {
  const std::string w = tolerance_warning(output(3e-7, 1e-5));
  EXPECT_THAT(w, HasSubstr("out: the reference's largest magnitude 3e-07 is below atol 1e-05"));
  EXPECT_THAT(w, HasSubstr("passes any value within atol of zero"));
  EXPECT_THAT(w, HasSubstr("lower atol in [[kernel]].tolerance"));
  EXPECT_THAT(tolerance_warning(output(1e-5, 1e-5)), HasSubstr("equals atol"));
}

TEST(ToleranceWarning, MeaningfulChecksAndEmptyOnesGiveNoWarning) {
  EXPECT_EQ(tolerance_warning(output(0.5, 1e-5)), "");
  EXPECT_EQ(tolerance_warning(output(0, 0)), "") << "atol 0: nothing passes for free";
  OutputError none = output(0, 1e-5);
  none.elements = 0;
  EXPECT_EQ(tolerance_warning(none), "") << "nothing was compared";
}

// compare_output measures the reference's magnitude the warning reads: finite values only,
// whatever the candidate wrote.
TEST(ToleranceWarning, CompareOutputReportsTheLargestFiniteReferenceMagnitude) {
  const std::vector<float> ref = {1e-7f, -4e-7f, 2e-7f, INFINITY};
  const std::vector<float> zeros = {0, 0, 0, INFINITY};
  const OutputComparison c = compare_output(DType::float32, ref.data(), zeros.data(), ref.size(), {1e-4, 1e-5});
  EXPECT_TRUE(c.passed()) << "zeros pass a check whose reference is below atol: the reason for the warning";
  EXPECT_FLOAT_EQ(static_cast<float>(c.max_reference), 4e-7f);
  OutputError o = output(c.max_reference, 1e-5);
  EXPECT_THAT(tolerance_warning(o), HasSubstr("4e-07 is below atol 1e-05"));
}

}  // namespace
}  // namespace kb::judge
