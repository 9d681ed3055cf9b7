// The README's `[llm]` configurations, one per family of endpoint, read from its fenced ```toml
// blocks so that tests run exactly what a user copies: `config check` accepts each, and each
// drives a search against a loopback server of its family once its base_url points there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tests/support/model_families.h"

namespace kb::testing {

// The first line of a family's block in the README, e.g. "# [llm] for an OpenAI reasoning model".
std::string readme_block_title(ModelFamily family);

// Every fenced ```toml block of `markdown` whose first line starts with "# [llm] for ", by that
// first line; the text is the block's, first line included.
std::map<std::string, std::string> readme_llm_blocks(const std::string& markdown);

// `family`'s block in `markdown`, if it has one.
std::optional<std::string> readme_llm_block(const std::string& markdown, ModelFamily family);

// The value of `key = "..."` in a TOML block (one line, a basic string), if the block sets it.
std::optional<std::string> toml_string_value(const std::string& toml, const std::string& key);

// The value of `key = <integer>` in a TOML block (one line), if the block sets it.
std::optional<int64_t> toml_integer_value(const std::string& toml, const std::string& key);

// The path and query of a URL: "https://h:1/openai/deployments/d?api-version=v" ->
// "/openai/deployments/d?api-version=v" ("" for a URL without either).
std::string path_and_query(const std::string& url);

// The block with its base_url moved to `origin` ("http://127.0.0.1:PORT"), path and query kept;
// a block without base_url gets one with the default's path (https://api.openai.com/v1).
std::string with_base_url_at(const std::string& toml, const std::string& origin);

// The Azure deployment name and api-version a base_url names
// (".../openai/deployments/DEPLOYMENT?api-version=VERSION"), if it names both.
struct AzureDeployment {
  std::string deployment, api_version;
};
std::optional<AzureDeployment> azure_deployment_of(const std::string& base_url);

}  // namespace kb::testing
