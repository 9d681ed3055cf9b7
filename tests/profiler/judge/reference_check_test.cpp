// A reference that proves nothing (reference_check.h): an output the original never writes, or
// writes only NaN and Inf, is an error naming it; a constant one is a warning.
#include "profiler/judge/outputs/reference_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/arg_type_names.h"
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

// The check reads each type's elements in one inlined pass; element by element through the
// codec (load_double, is_poison) it must find the same: poison, finite values, a constant.
std::string kind_one_by_one(DType t, ArgRole role, const void* data, size_t count) {
  size_t poison = 0, finite = 0;
  bool constant = true;
  const double first = load_double(t, data, 0);
  for (size_t i = 0; i < count; ++i) {
    if (role == ArgRole::output && is_poison(t, data, i)) {
      ++poison;
      continue;
    }
    const double v = load_double(t, data, i);
    if (std::isfinite(v)) ++finite;
    constant = constant && (v == first || (std::isnan(v) && std::isnan(first)));
  }
  // The findings by kind only: the test compares which finding, not the wording.
  if (poison == count) return "poison";
  if (dtype_is_float(t) && finite == 0) return "no finite";
  if (constant && count - poison >= 16) return "constant";
  return "";
}

std::string kind_of(const ReferenceFinding& f) {
  if (f.error.find("poison in all") != std::string::npos) return "poison";
  if (f.error.find("no finite value") != std::string::npos) return "no finite";
  if (!f.error.empty()) return "other error: " + f.error;
  if (f.warning.find("at every element it wrote") != std::string::npos) return "constant";
  return f.warning.empty() ? "" : "other warning: " + f.warning;
}

TEST(ReferenceCheck, EveryTypeFindsWhatReadingElementByElementFinds) {
  const std::vector<DType> types = {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int64,
                                    DType::int32,   DType::uint32,  DType::int8,    DType::uint8};
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Buffers of 40 elements: what each holds at an index (poison, or a value to store).
  const std::vector<std::pair<std::string, std::function<double(size_t)>>> shapes = {
      {"all poison", [&](size_t) { return nan; }},
      {"values", [](size_t i) { return static_cast<double>(i % 7) - 3.0; }},
      {"a constant", [](size_t) { return 2.0; }},
      {"non-finite only", [&](size_t i) { return i % 2 ? inf : nan; }},
      {"one finite among NaN", [&](size_t i) { return i == 17 ? 1.5 : nan; }},
      {"a constant after poison", [](size_t) { return 2.0; }},
      {"poison, then values", [](size_t i) { return static_cast<double>(i); }},
  };
  int checked = 0;
  for (DType t : types)
    for (const auto& [shape, value] : shapes)
      for (ArgRole role : {ArgRole::output, ArgRole::inout}) {
        const size_t n = 40;
        std::vector<unsigned char> data(n * dtype_size(t));
        for (size_t i = 0; i < n; ++i) store_double(t, data.data(), i, value(i));
        if (shape == "all poison") fill_poison(t, data.data(), n);
        if (shape == "a constant after poison" || shape == "poison, then values")
          fill_poison(t, data.data(), 5);  // the first elements left as the judge filled them
        SCOPED_TRACE(std::string(to_string(t)) + ", " + shape + ", " + to_string(role));
        EXPECT_EQ(kind_of(check_reference(t, role, "y", "n=40", data.data(), n)),
                  kind_one_by_one(t, role, data.data(), n));
        ++checked;
      }
  EXPECT_EQ(checked, 9 * 7 * 2);
}

}  // namespace
}  // namespace kb::judge
