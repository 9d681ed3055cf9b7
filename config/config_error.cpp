#include "config/config_error.h"

namespace kb::config {

std::string ConfigDiagnostic::format() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": error: ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

namespace {
std::string summary(const std::vector<ConfigDiagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += (out.empty() ? "" : "\n") + d.format();
  return out;
}
}  // namespace

ConfigError::ConfigError(std::vector<ConfigDiagnostic> diagnostics)
    : UsageError(summary(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace kb::config
