#include "search/llm/provider_facts.h"

#include <array>

namespace kb::search {
namespace {

// max_completion_tokens before max_tokens: a message naming both ("Unsupported parameter:
// 'max_tokens' ... Use 'max_completion_tokens' instead.") is read by position, not by this order.
constexpr std::array kFacts = {
    ProviderFact{RequestFeature::max_completion_tokens, "max_completion_tokens",
                 "sends max_tokens instead of max_completion_tokens", "token_parameter"},
    ProviderFact{RequestFeature::max_tokens, "max_tokens", "sends max_completion_tokens instead of max_tokens",
                 "token_parameter"},
    ProviderFact{RequestFeature::temperature, "temperature", "sends no temperature", "send_temperature"},
    ProviderFact{RequestFeature::stream_options, "stream_options",
                 "streams without stream_options (token counts are estimated)", ""},
    ProviderFact{RequestFeature::stream, "stream", "does not stream", "stream"},
    ProviderFact{RequestFeature::system_role, "system_role", "folds the system message into the user's", ""},
};

}  // namespace

std::span<const ProviderFact> provider_facts() { return kFacts; }

const ProviderFact& provider_fact(RequestFeature feature) {
  for (const auto& fact : kFacts)
    if (fact.feature == feature) return fact;
  return kFacts.front();  // unreachable: every enumerator has a row (provider_facts_test.cpp)
}

std::optional<RequestFeature> request_feature_named(std::string_view field) {
  for (const auto& fact : kFacts)
    if (fact.field == field) return fact.feature;
  return std::nullopt;
}

}  // namespace kb::search
