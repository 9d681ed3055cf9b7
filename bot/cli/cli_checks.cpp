#include "bot/cli/cli_checks.h"

#include <cstdlib>
#include <optional>
#include <string>

namespace kb::bot {
namespace {

// The value as a number, or nullopt when it is none (CLI11 then reports the type itself).
std::optional<double> number_of(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

std::string shown(double v) {
  std::string text = std::to_string(v);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

CLI::Validator at_least(double least) {
  return {[least](std::string& value) -> std::string {
            const auto v = number_of(value);
            if (!v) return "expected a number, got '" + value + "'";
            return *v >= least ? "" : "must be at least " + shown(least) + ", got " + value;
          },
          "NUMBER >= " + shown(least)};
}

CLI::Validator above_zero() {
  return {[](std::string& value) -> std::string {
            const auto v = number_of(value);
            if (!v) return "expected a number, got '" + value + "'";
            return *v > 0 ? "" : "must be greater than 0, got " + value;
          },
          "NUMBER > 0"};
}

}  // namespace kb::bot
