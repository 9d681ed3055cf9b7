// The prompt files (search/llm/prompts/*.md), embedded into the binary at build time.
#pragma once

#include <string>

namespace kb::search {

// The embedded prompt files by name: "system", "ideas", "implement", "repair", "crossover".
const char* prompt_text(const std::string& name);

}  // namespace kb::search
