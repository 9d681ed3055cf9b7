// Config problems, each pointing at a file position and a field, collected so that a user sees
// every mistake of a file at once rather than one per run.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"

namespace kb::config {

struct ConfigDiagnostic {
  std::string file;
  int line = 0;  // 0: no position (e.g. the file is missing)
  int column = 0;
  std::string field;  // e.g. "kernel[0].arg[2].dtype"
  std::string message;
  std::string format() const;  // "file:line:col: error: field: message"
};

// Thrown by load_config when the file cannot be used: a UsageError (exit code 2) that carries every
// diagnostic, so main() can print them all.
class ConfigError : public UsageError {
 public:
  explicit ConfigError(std::vector<ConfigDiagnostic> diagnostics);
  const std::vector<ConfigDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<ConfigDiagnostic> diagnostics_;
};

}  // namespace kb::config
