// What the config tests ask of a config text that must fail: its diagnostics, and whether one of
// them is about a field and says a text. One definition for the suite's files (a unity build
// compiles them as one translation unit).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/config_loader.h"

namespace kb::config::test_support {

// Parses text that must fail and returns its diagnostics (root "" = no file-existence checks).
inline std::vector<ConfigDiagnostic> errors_of(const std::string& text) {
  try {
    load_config_text(text, "kernelbot.toml", "");
  } catch (const ConfigError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected a ConfigError for:\n" << text;
  return {};
}

// Whether some diagnostic is about `field` and says `text`.
inline bool has_error(const std::vector<ConfigDiagnostic>& errs, const std::string& field, const std::string& text) {
  for (const auto& e : errs)
    if (e.field == field && e.message.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace kb::config::test_support
