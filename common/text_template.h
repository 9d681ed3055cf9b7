// Text templates with {{PLACEHOLDER}} slots (the LLM prompts, the PR body); this fills them. A slot
// left unfilled is a bug in the caller, reported as such.
#pragma once

#include <map>
#include <string>

namespace kb {

// `text` with every {{NAME}} replaced by values.at(NAME). Throws kb::Error naming the
// placeholders that have no value.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace kb
