// Prompts are data files (search/prompts/*.md, embedded at build time) with {{PLACEHOLDER}}
// slots; this fills them. A slot left unfilled is a bug in the caller, reported as such.
#pragma once

#include <map>
#include <string>

namespace kb::search {

// `text` with every {{NAME}} replaced by values.at(NAME). Throws std::logic_error naming the
// placeholders that have no value.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

// The embedded prompt files by name: "system", "ideas", "implement", "repair", "crossover".
const char* prompt_text(const std::string& name);

}  // namespace kb::search
