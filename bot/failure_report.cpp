#include "bot/failure_report.h"

#include <cstring>

namespace kb::bot {

nlohmann::json failure_json(const std::string& kind, const std::string& message, int exit_code,
                            const std::vector<config::ConfigDiagnostic>& diagnostics) {
  nlohmann::json error{{"kind", kind}, {"message", message}};
  if (!diagnostics.empty()) {
    auto& list = error["diagnostics"] = nlohmann::json::array();
    for (const auto& d : diagnostics) {
      nlohmann::json j{{"file", d.file}, {"message", d.message}};
      if (d.line > 0) j["line"] = d.line;
      if (d.column > 0) j["column"] = d.column;
      if (!d.field.empty()) j["field"] = d.field;
      list.push_back(j);
    }
  }
  return {{"ok", false}, {"exit_code", exit_code}, {"error", error}};
}

bool json_requested(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;  // what follows belongs to a profiled command
    if (std::strcmp(argv[i], "--json") == 0) return true;
  }
  return false;
}

}  // namespace kb::bot
