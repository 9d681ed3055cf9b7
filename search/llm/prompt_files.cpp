#include "search/llm/prompt_files.h"

#include <stdexcept>

#include "core/errors.h"

namespace kb::embedded {
extern const char* const prompt_system;
extern const char* const prompt_ideas;
extern const char* const prompt_implement;
extern const char* const prompt_repair;
extern const char* const prompt_crossover;
}  // namespace kb::embedded

namespace kb::search {

const char* prompt_text(const std::string& name) {
  if (name == "system") return embedded::prompt_system;
  if (name == "ideas") return embedded::prompt_ideas;
  if (name == "implement") return embedded::prompt_implement;
  if (name == "repair") return embedded::prompt_repair;
  if (name == "crossover") return embedded::prompt_crossover;
  throw Error("no prompt named '" + name + "'");
}

}  // namespace kb::search
