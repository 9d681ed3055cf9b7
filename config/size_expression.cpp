#include "config/size_expression.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <variant>

namespace kb::config {
namespace {

// A value is either an exact integer or a double; integer ops stay integer so that element
// counts such as 4096*4096*4 never round.
struct Value {
  bool is_int = true;
  int64_t i = 0;
  double d = 0;
  double as_double() const { return is_int ? static_cast<double>(i) : d; }
};

class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, int64_t>* sizes, std::set<std::string>* names)
      : text_(text), sizes_(sizes), names_(names) {}

  Value parse() {
    Value v = expr();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ExpressionError("in expression \"" + text_ + "\" at column " + std::to_string(pos_ + 1) + ": " + what);
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static Value arith(char op, Value a, Value b, const Parser& p) {
    if (a.is_int && b.is_int) {
      int64_t r = 0;
      switch (op) {
        case '+':
          if (__builtin_add_overflow(a.i, b.i, &r)) p.fail("integer overflow");
          return {true, r, 0};
        case '-':
          if (__builtin_sub_overflow(a.i, b.i, &r)) p.fail("integer overflow");
          return {true, r, 0};
        case '*':
          if (__builtin_mul_overflow(a.i, b.i, &r)) p.fail("integer overflow");
          return {true, r, 0};
        case '/':
          // C semantics, as in the kernel code these sizes mirror: (n + 255) / 256 * 256.
          if (b.i == 0) p.fail("division by zero");
          return {true, a.i / b.i, 0};
        case '%':
          if (b.i == 0) p.fail("division by zero");
          return {true, a.i % b.i, 0};
      }
    }
    double x = a.as_double(), y = b.as_double();
    switch (op) {
      case '+': return {false, 0, x + y};
      case '-': return {false, 0, x - y};
      case '*': return {false, 0, x * y};
      case '/':
        if (y == 0) p.fail("division by zero");
        return {false, 0, x / y};
      default: p.fail("'%' needs integer operands");
    }
  }

  Value expr() {
    Value v = term();
    for (;;) {
      if (eat('+')) v = arith('+', v, term(), *this);
      else if (eat('-')) v = arith('-', v, term(), *this);
      else return v;
    }
  }
  Value term() {
    Value v = unary();
    for (;;) {
      if (eat('*')) v = arith('*', v, unary(), *this);
      else if (eat('/')) v = arith('/', v, unary(), *this);
      else if (eat('%')) v = arith('%', v, unary(), *this);
      else return v;
    }
  }
  Value unary() {
    if (eat('-')) {
      Value v = unary();
      if (v.is_int) v.i = -v.i;
      else v.d = -v.d;
      return v;
    }
    if (eat('+')) return unary();
    return primary();
  }
  Value primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expression ends too early");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Value v = expr();
      if (!eat(')')) fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name_or_call();
    fail("unexpected '" + std::string(1, c) + "'");
  }
  Value number() {
    size_t start = pos_;
    bool floating = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E') {
        floating = true;
        ++pos_;
        if ((c == 'e' || c == 'E') && pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
      } else {
        break;
      }
    }
    std::string digits;
    for (size_t k = start; k < pos_; ++k)
      if (text_[k] != '_') digits += text_[k];
    try {
      size_t used = 0;
      if (floating) {
        double d = std::stod(digits, &used);
        if (used != digits.size()) fail("bad number '" + digits + "'");
        return {false, 0, d};
      }
      int64_t i = std::stoll(digits, &used);
      return {true, i, 0};
    } catch (const std::logic_error&) {
      fail("bad number '" + digits + "'");
    }
  }
  Value name_or_call() {
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    if (eat('(')) {
      Value a = expr();
      if (!eat(',')) fail(name + "() takes two arguments");
      Value b = expr();
      if (!eat(')')) fail("missing ')'");
      if (name == "min") return a.as_double() <= b.as_double() ? a : b;
      if (name == "max") return a.as_double() >= b.as_double() ? a : b;
      if (name == "ceil_div") {
        if (!a.is_int || !b.is_int) fail("ceil_div() needs integers");
        if (b.i == 0) fail("division by zero");
        return {true, (a.i + b.i - 1) / b.i, 0};
      }
      fail("unknown function '" + name + "' (known: min, max, ceil_div)");
    }
    if (names_) names_->insert(name);
    if (!sizes_) return {true, 1, 0};
    auto it = sizes_->find(name);
    if (it == sizes_->end()) {
      std::string known;
      for (const auto& [k, v] : *sizes_) known += (known.empty() ? "" : ", ") + k;
      fail("unknown size '" + name + "'" + (known.empty() ? "" : " (known: " + known + ")"));
    }
    return {true, it->second, 0};
  }

  const std::string& text_;
  const std::map<std::string, int64_t>* sizes_;
  std::set<std::string>* names_;
  size_t pos_ = 0;
};

}  // namespace

double evaluate_expression(const std::string& text, const std::map<std::string, int64_t>& sizes) {
  if (text.empty()) throw ExpressionError("empty expression");
  return Parser(text, &sizes, nullptr).parse().as_double();
}

int64_t evaluate_count(const std::string& text, const std::map<std::string, int64_t>& sizes) {
  if (text.empty()) throw ExpressionError("empty expression");
  Value v = Parser(text, &sizes, nullptr).parse();
  if (!v.is_int) {
    double d = v.d;
    if (std::floor(d) != d || d > static_cast<double>(std::numeric_limits<int64_t>::max()))
      throw ExpressionError("expression \"" + text + "\" is not a whole number (" + std::to_string(d) + ")");
    v = {true, static_cast<int64_t>(d), 0};
  }
  if (v.i < 0) throw ExpressionError("expression \"" + text + "\" is negative (" + std::to_string(v.i) + ")");
  return v.i;
}

std::set<std::string> expression_names(const std::string& text) {
  std::set<std::string> names;
  if (text.empty()) throw ExpressionError("empty expression");
  Parser(text, nullptr, &names).parse();
  return names;
}

}  // namespace kb::config
