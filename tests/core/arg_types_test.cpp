// Roles and dtypes: one enum each for the config, the bot and the judge, and their one spelling.
#include <gtest/gtest.h>

#include <string>

#include "core/arg_type_names.h"
#include "core/arg_types.h"

namespace kb {
namespace {

// The questions device code asks are answered at compile time.
static_assert(dtype_size(DType::bfloat16) == 2);
static_assert(dtype_is_float(DType::float16) && !dtype_is_float(DType::int8));
static_assert(dtype_is_unsigned(DType::uint32) && !dtype_is_unsigned(DType::int32));
static_assert(role_is_buffer(ArgRole::inout) && !role_is_buffer(ArgRole::stream));

TEST(ArgTypes, ParsesEveryDtypeAndKnowsItsSize) {
  struct Known {
    const char* name;
    size_t size;
    bool is_float;
    const char* cpp;
  };
  const Known types[] = {{"float64", 8, true, "double"},   {"float32", 4, true, "float"},
                         {"float16", 2, true, "__half"},   {"bfloat16", 2, true, "__nv_bfloat16"},
                         {"int64", 8, false, "int64_t"},   {"int32", 4, false, "int"},
                         {"uint32", 4, false, "unsigned"}, {"int8", 1, false, "int8_t"},
                         {"uint8", 1, false, "uint8_t"}};
  ASSERT_EQ(dtype_names().size(), std::size(types));
  for (size_t i = 0; i < std::size(types); ++i) {
    const Known& k = types[i];
    auto t = parse_dtype(k.name);
    ASSERT_TRUE(t.has_value()) << k.name;
    EXPECT_EQ(static_cast<size_t>(*t), i) << k.name << ": the enum's order is the wire's";
    EXPECT_EQ(dtype_size(*t), k.size) << k.name;
    EXPECT_EQ(dtype_is_float(*t), k.is_float) << k.name;
    EXPECT_STREQ(to_string(*t), k.name);
    EXPECT_STREQ(dtype_names()[i], k.name);
    EXPECT_STREQ(dtype_cpp_type(*t), k.cpp);
  }
  EXPECT_FALSE(parse_dtype("float128").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
}

TEST(ArgTypes, RolesRoundTripTheirNames) {
  const char* names[] = {"input", "output", "inout", "scalar", "size", "stream", "workspace"};
  ASSERT_EQ(arg_role_names().size(), std::size(names));
  for (size_t i = 0; i < std::size(names); ++i) {
    auto r = parse_arg_role(names[i]);
    ASSERT_TRUE(r.has_value()) << names[i];
    EXPECT_STREQ(to_string(*r), names[i]);
    EXPECT_STREQ(arg_role_names()[i], names[i]);
    EXPECT_EQ(role_is_buffer(*r), i < 3 || *r == ArgRole::workspace) << names[i];
  }
  EXPECT_FALSE(parse_arg_role("river").has_value());
}

// What the judge does with each role's buffer: a workspace is lent and poisoned like an output,
// never filled and never compared, and need not stay unchanged (a candidate may use it differently).
TEST(ArgTypes, EachBufferRoleIsFilledPoisonedOrComparedAsTheJudgeNeeds) {
  struct Expected {
    ArgRole role;
    bool buffer, filled, poisoned, compared, unchanged;
  };
  const Expected roles[] = {
      {ArgRole::input, true, true, false, false, true},     {ArgRole::output, true, false, true, true, false},
      {ArgRole::inout, true, true, false, true, false},     {ArgRole::workspace, true, false, true, false, false},
      {ArgRole::scalar, false, false, false, false, false}, {ArgRole::size, false, false, false, false, false},
      {ArgRole::stream, false, false, false, false, false},
  };
  for (const auto& e : roles) {
    SCOPED_TRACE(to_string(e.role));
    EXPECT_EQ(role_is_buffer(e.role), e.buffer);
    EXPECT_EQ(role_is_filled(e.role), e.filled);
    EXPECT_EQ(role_is_poisoned(e.role), e.poisoned);
    EXPECT_EQ(role_is_compared(e.role), e.compared);
    EXPECT_EQ(role_must_stay_unchanged(e.role), e.unchanged);
  }
}
static_assert(role_is_buffer(ArgRole::workspace) && role_is_poisoned(ArgRole::workspace) &&
              !role_is_compared(ArgRole::workspace));

}  // namespace
}  // namespace kb
