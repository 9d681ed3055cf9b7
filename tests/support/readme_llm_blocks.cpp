#include "tests/support/readme_llm_blocks.h"

#include <regex>
#include <sstream>

namespace kb::testing {

namespace {

const char* const kTitlePrefix = "# [llm] for ";
const char* const kDefaultBaseUrl = "https://api.openai.com/v1";

}  // namespace

std::string readme_block_title(ModelFamily family) {
  switch (family) {
    case ModelFamily::reasoning: return "# [llm] for an OpenAI reasoning model";
    case ModelFamily::separate_reasoning: return "# [llm] for a model that shows its reasoning apart (DeepSeek)";
    case ModelFamily::local: return "# [llm] for a local server (llama.cpp, vLLM, Ollama)";
    case ModelFamily::azure: return "# [llm] for Azure OpenAI";
  }
  return "";
}

std::map<std::string, std::string> readme_llm_blocks(const std::string& markdown) {
  std::map<std::string, std::string> blocks;
  std::istringstream in(markdown);
  std::string line, block, title;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside) {
      if (line == "```toml") {
        inside = true;
        block.clear();
        title.clear();
      }
      continue;
    }
    if (line == "```") {
      inside = false;
      if (title.rfind(kTitlePrefix, 0) == 0) blocks[title] = block;
      continue;
    }
    if (block.empty()) title = line;
    block += line + "\n";
  }
  return blocks;
}

std::optional<std::string> readme_llm_block(const std::string& markdown, ModelFamily family) {
  auto blocks = readme_llm_blocks(markdown);
  auto it = blocks.find(readme_block_title(family));
  if (it == blocks.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> toml_string_value(const std::string& toml, const std::string& key) {
  const std::regex line_re("(^|\n)[ \t]*" + key + "[ \t]*=[ \t]*\"([^\"]*)\"");
  std::smatch m;
  if (!std::regex_search(toml, m, line_re)) return std::nullopt;
  return m[2].str();
}

std::optional<int64_t> toml_integer_value(const std::string& toml, const std::string& key) {
  const std::regex line_re("(^|\n)[ \t]*" + key + "[ \t]*=[ \t]*([0-9_]+)");
  std::smatch m;
  if (!std::regex_search(toml, m, line_re)) return std::nullopt;
  std::string digits = m[2].str();
  std::erase(digits, '_');
  return std::stoll(digits);
}

std::string path_and_query(const std::string& url) {
  size_t scheme = url.find("://");
  size_t from = scheme == std::string::npos ? 0 : scheme + 3;
  size_t at = url.find_first_of("/?", from);
  return at == std::string::npos ? "" : url.substr(at);
}

std::string with_base_url_at(const std::string& toml, const std::string& origin) {
  const std::optional<std::string> old = toml_string_value(toml, "base_url");
  const std::string line = "base_url = \"" + origin + path_and_query(old.value_or(kDefaultBaseUrl)) + "\"";
  if (old) {
    const std::regex line_re("(^|\n)([ \t]*)base_url[ \t]*=[ \t]*\"[^\"]*\"");
    return std::regex_replace(toml, line_re, "$1$2" + line, std::regex_constants::format_first_only);
  }
  std::string out = toml;
  size_t header = out.find("[llm]\n");
  if (header == std::string::npos) return out + line + "\n";
  return out.insert(header + 6, line + "\n");
}

std::optional<AzureDeployment> azure_deployment_of(const std::string& base_url) {
  static const std::regex azure_re(R"(/openai/deployments/([^/?]+)/?\?(?:.*&)?api-version=([^&]+))");
  std::smatch m;
  if (!std::regex_search(base_url, m, azure_re)) return std::nullopt;
  return AzureDeployment{m[1].str(), m[2].str()};
}

}  // namespace kb::testing
