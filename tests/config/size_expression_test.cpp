#include "config/size_expression.h"

#include <gtest/gtest.h>

using kb::config::evaluate_count;
using kb::config::evaluate_expression;
using kb::config::expression_names;
using kb::config::ExpressionError;

TEST(SizeExpression, IntegerArithmeticIsExact) {
  std::map<std::string, int64_t> s{{"rows", 4096}, {"cols", 4096}, {"n", 1000003}};
  EXPECT_EQ(evaluate_count("rows*cols", s), 16777216);
  EXPECT_EQ(evaluate_count("rows * cols * 4096", s), 68719476736);  // beyond 32 bits
  EXPECT_EQ(evaluate_count("ceil_div(n, 256)", s), 3907);
  EXPECT_EQ(evaluate_count("(n + 255) / 256 * 256", s), 1000192);
  EXPECT_EQ(evaluate_count("n % 7", s), 1000003 % 7);
  EXPECT_EQ(evaluate_count("max(rows, n) - min(rows, 1)", s), 1000002);
  EXPECT_EQ(evaluate_count("1_024", s), 1024);
}

TEST(SizeExpression, FloatingValues) {
  std::map<std::string, int64_t> s{{"n", 4}};
  EXPECT_DOUBLE_EQ(evaluate_expression("2.5", s), 2.5);
  EXPECT_DOUBLE_EQ(evaluate_expression("1.0/n", s), 0.25);
  EXPECT_DOUBLE_EQ(evaluate_expression("1/n", s), 0);  // integer division, as in C
  EXPECT_DOUBLE_EQ(evaluate_expression("-1e-5", s), -1e-5);
  EXPECT_DOUBLE_EQ(evaluate_expression("8*n*n", s), 128);
}

TEST(SizeExpression, ErrorsSayWhatAndWhere) {
  std::map<std::string, int64_t> s{{"n", 4}};
  auto message = [&](const std::string& text) {
    try {
      evaluate_count(text, s);
    } catch (const ExpressionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("m").find("unknown size 'm' (known: n)"), std::string::npos);
  EXPECT_NE(message("n +").find("ends too early"), std::string::npos);
  EXPECT_NE(message("n / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(message("n / 3.0").find("not a whole number"), std::string::npos);
  EXPECT_NE(message("1 - n").find("negative"), std::string::npos);
  EXPECT_NE(message("n $ 2").find("column 3"), std::string::npos);
  EXPECT_NE(message("pow(n, 2)").find("unknown function"), std::string::npos);
  EXPECT_NE(message("9223372036854775807 * 2").find("overflow"), std::string::npos);
  EXPECT_NE(message("").find("empty"), std::string::npos);
}

TEST(SizeExpression, NamesAreCollectedWithoutValues) {
  EXPECT_EQ(expression_names("rows*cols + ceil_div(n, 2)"), (std::set<std::string>{"rows", "cols", "n"}));
  EXPECT_TRUE(expression_names("42").empty());
  EXPECT_THROW(expression_names("(rows"), ExpressionError);
}
