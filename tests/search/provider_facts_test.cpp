#include "search/llm/provider_facts.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace kb::search {
namespace {

constexpr RequestFeature kEveryFeature[] = {RequestFeature::max_tokens,  RequestFeature::max_completion_tokens,
                                            RequestFeature::temperature, RequestFeature::stream_options,
                                            RequestFeature::stream,      RequestFeature::system_role};

TEST(ProviderFacts, EveryFeatureHasOneRowAndItsFieldNamesIt) {
  EXPECT_EQ(provider_facts().size(), std::size(kEveryFeature));
  std::set<std::string_view> fields;
  for (RequestFeature feature : kEveryFeature) {
    const ProviderFact& fact = provider_fact(feature);
    EXPECT_EQ(fact.feature, feature) << fact.field;
    EXPECT_FALSE(fact.adaptation.empty()) << fact.field;
    EXPECT_TRUE(fields.insert(fact.field).second) << "two rows name " << fact.field;
    EXPECT_EQ(request_feature_named(fact.field), feature) << fact.field;
  }
  EXPECT_FALSE(request_feature_named("messages").has_value());
}

// docs/llm.md's table of refused features says what the code does, row for row.
TEST(ProviderFacts, TheLlmPageListsEveryRow) {
  std::ifstream in(std::string(KB_SOURCE_DIR) + "/docs/llm.md");
  std::stringstream page;
  page << in.rdbuf();
  for (const ProviderFact& fact : provider_facts()) {
    const std::string key = fact.config_key.empty() ? "-" : "`" + std::string(fact.config_key) + "`";
    const std::string row = "| `" + std::string(fact.field) + "` | " + std::string(fact.adaptation) + " | " + key +
                            " |";
    EXPECT_NE(page.str().find(row), std::string::npos) << "docs/llm.md lacks the row\n" << row;
  }
}

}  // namespace
}  // namespace kb::search
