// The README's [llm] block of each family of endpoint, pointed at a loopback server of that family
// (tests/support/model_families.h), drives the real proposer and chat client through a search
// on the simulated evaluator to an accepted candidate: the configuration a user copies works
// against what each provider documents, on a CPU. (tests/bot/model_families_gpu_test.cpp does
// the same with the real binary on a GPU.)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/config_loader.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "tests/search/simulated_evaluator.h"
#include "tests/search/test_project.h"
#include "tests/support/model_families.h"
#include "tests/support/readme_llm_blocks.h"
#include "tests/support/scoped_env.h"

using namespace kb;
using namespace kb::testing;

namespace {

// What every family's model writes for TestProject's kernel: twice as fast on the simulated GPU.
const std::string kFamilyWinner =
    "#ifndef K_BLOCK\n#define K_BLOCK 256\n#endif\n// SIM_TIME=50\n__global__ void k(float* y, int n) {}\n"
    "void launch_k(float* y, int n) {\n  k<<<(n + K_BLOCK - 1) / K_BLOCK, K_BLOCK>>>(y, n);\n}\n";

std::string readme_text() {
  std::ifstream in(std::string(KB_SOURCE_DIR) + "/README.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The family's README block as kernelbot reads it, its base_url moved to `origin`.
config::LlmConfig readme_llm(ModelFamily family, const std::string& origin) {
  auto block = readme_llm_block(readme_text(), family);
  if (!block) throw std::runtime_error("README.md has no block titled \"" + readme_block_title(family) + "\"");
  return config::load_config_text(with_base_url_at(*block, origin), "README.md", KB_SOURCE_DIR).llm;
}

// The server's options for a block: Azure's deployment and api-version are the block's own, and
// a local server's context is the one the block names, if it names one.
FamilyOptions options_for(ModelFamily family, const config::LlmConfig& llm) {
  FamilyOptions options;
  if (family == ModelFamily::local && llm.context_tokens > 0) options.n_ctx = llm.context_tokens;
  if (family == ModelFamily::azure) {
    auto azure = azure_deployment_of(llm.base_url);
    if (!azure) throw std::runtime_error("the Azure block's base_url names no deployment: " + llm.base_url);
    options.deployment = azure->deployment;
    options.api_version = azure->api_version;
  }
  return options;
}

struct FamilySearch {
  search::SearchResult result;
  std::vector<LoopbackRequest> requests;
};

// One round, one idea: the search the README's block drives against its family's server.
FamilySearch search_through(ModelFamily family, const FamilyOptions& options, config::LlmConfig llm) {
  LoopbackHttpServer server(family_handler(family, ScriptedModel{kFamilyWinner}, options));
  llm.base_url = server.base_url() + path_and_query(llm.base_url);
  std::optional<ScopedEnv> key;
  if (!llm.api_key_env.empty()) key.emplace(llm.api_key_env.c_str(), options.key);
  TestProject p;
  p.config.llm = llm;
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 2;
  search::ProposerOptions proposer_options;
  proposer_options.retry = search::RetryPolicy{0.01, 0.05, 5};
  auto proposer = search::make_proposer(p.config, p.spec(), proposer_options);
  SimulatedEvaluator evaluator;
  FamilySearch out;
  out.result = search::run_search(request_for(p, evaluator, *proposer));
  out.requests = server.requests();
  return out;
}

void expect_accepted_without_decoys(const FamilySearch& s) {
  const auto* best = s.result.best();
  ASSERT_NE(best, nullptr) << "stopped: " << s.result.stop_reason;
  EXPECT_EQ(s.result.proposer, "llm");
  EXPECT_EQ(best->verdict(), Verdict::accepted);
  EXPECT_EQ(best->variant.source, kFamilyWinner);
  EXPECT_DOUBLE_EQ(best->speedup(), 2.0);
  EXPECT_EQ(best->idea.family, "memory_access");
  for (const auto& c : s.result.tree) {
    EXPECT_EQ(c.variant.source.find(kDecoyMarker), std::string::npos) << c.id << " was read from the reasoning";
    EXPECT_EQ(c.idea.text.find(kDecoyMarker), std::string::npos) << c.id << " was read from the reasoning";
  }
  EXPECT_GT(s.result.budget.completion_tokens, 0);
}

class ReadmeFamily : public ::testing::TestWithParam<ModelFamily> {};

TEST_P(ReadmeFamily, ItsReadmeBlockDrivesASearchToAnAcceptedCandidate) {
  const ModelFamily family = GetParam();
  const config::LlmConfig llm = readme_llm(family, "http://127.0.0.1:1");
  const FamilyOptions options = options_for(family, llm);
  FamilySearch s = search_through(family, options, llm);
  expect_accepted_without_decoys(s);
  EXPECT_EQ(family_shape_problem(family, s.requests, options), "");
  EXPECT_GE(s.result.budget.llm_requests, 2);  // the ideas and at least one implementation
}

INSTANTIATE_TEST_SUITE_P(Families, ReadmeFamily, ::testing::ValuesIn(all_model_families()),
                         [](const ::testing::TestParamInfo<ModelFamily>& param_info) {
                           return family_name(param_info.param);
                         });

TEST(ReadmeFamilies, TheReasoningBlockSendsItsReasoningEffortAndNoTemperature) {
  const config::LlmConfig llm = readme_llm(ModelFamily::reasoning, "http://127.0.0.1:1");
  FamilySearch s = search_through(ModelFamily::reasoning, {}, llm);
  expect_accepted_without_decoys(s);
  // o4-mini is known as a reasoning model: asked right the first time, every time.
  for (const auto& r : s.requests) {
    auto body = nlohmann::json::parse(r.body);
    EXPECT_EQ(body.value("reasoning_effort", ""), "high") << r.body.substr(0, 300);
    EXPECT_TRUE(body.contains("max_completion_tokens"));
    EXPECT_FALSE(body.contains("temperature"));
  }
}

TEST(ReadmeFamilies, AReasoningModelBehindAGatewayAliasIsLearnedFromItsRefusals) {
  // A gateway's name says nothing of the model behind it: kernelbot learns from the 400s.
  config::LlmConfig llm = readme_llm(ModelFamily::reasoning, "http://127.0.0.1:1");
  llm.model = "corp-reasoner";
  FamilySearch s = search_through(ModelFamily::reasoning, {}, llm);
  expect_accepted_without_decoys(s);
  EXPECT_EQ(family_shape_problem(ModelFamily::reasoning, s.requests, {}), "");
  ASSERT_GE(s.requests.size(), 3u);
  EXPECT_TRUE(nlohmann::json::parse(s.requests[0].body).contains("max_tokens"));
  EXPECT_TRUE(nlohmann::json::parse(s.requests[1].body).contains("temperature"));
  // Refused twice in the whole search, not once per exchange.
  int refused = 0;
  for (const auto& r : s.requests) {
    auto body = nlohmann::json::parse(r.body);
    refused += body.contains("max_tokens") || body.contains("temperature");
  }
  EXPECT_EQ(refused, 2);
}

TEST(ReadmeFamilies, TheLocalBlockFitsItsRepliesToTheServersContext) {
  const config::LlmConfig llm = readme_llm(ModelFamily::local, "http://127.0.0.1:1");
  EXPECT_EQ(llm.api_key_env, "");
  FamilyOptions options;
  options.n_ctx = 4096;
  FamilySearch s = search_through(ModelFamily::local, options, llm);
  expect_accepted_without_decoys(s);
  EXPECT_EQ(family_shape_problem(ModelFamily::local, s.requests, options), "");
  for (const auto& r : s.requests) {
    auto body = nlohmann::json::parse(r.body);
    // Every request the server takes is fitted to its context: the reply limit is what the
    // prompt leaves, give or take the client's margin.
    if (!local_refuses(body, options.n_ctx)) {
      EXPECT_TRUE(fills_context(body, options.n_ctx)) << r.body.substr(0, 300);
    }
  }
}

TEST(ReadmeFamilies, AnAzureBlockPointedAtAnotherDeploymentIsRefused) {
  // The server checks the block's URL: the same block at a deployment it does not serve gets
  // Azure's 404, and the search says what to check.
  const config::LlmConfig llm = readme_llm(ModelFamily::azure, "http://127.0.0.1:1");
  FamilyOptions options = options_for(ModelFamily::azure, llm);
  options.deployment += "-other";
  FamilySearch s = search_through(ModelFamily::azure, options, llm);
  EXPECT_EQ(s.result.best(), nullptr);
  EXPECT_NE(s.result.stop_reason.find("HTTP 404: Resource not found"), std::string::npos) << s.result.stop_reason;
  EXPECT_NE(s.result.stop_reason.find("[llm].base_url"), std::string::npos) << s.result.stop_reason;
  EXPECT_NE(family_shape_problem(ModelFamily::azure, s.requests, options), "");
}

}  // namespace

namespace {

LoopbackRequest request_of(const nlohmann::json& body, std::map<std::string, std::string> headers = {},
                           const std::string& target = "/v1/chat/completions") {
  LoopbackRequest r;
  r.method = "POST";
  r.target = target;
  r.path = target.substr(0, target.find('?'));
  r.headers = std::move(headers);
  r.body = body.dump();
  return r;
}

}  // namespace

TEST(FamilyShapeCheck, NamesWhatIsWrongWithTheRequestsAFamilyGot) {
  const FamilyOptions options;
  const std::map<std::string, std::string> bearer{{"authorization", "Bearer " + options.key}};
  const nlohmann::json messages = {{{"role", "user"}, {"content", std::string(4000, 'x')}}};  // 1000 tokens
  EXPECT_EQ(family_shape_problem(ModelFamily::reasoning, {}, options), "the server got no request");
  EXPECT_EQ(family_shape_problem(ModelFamily::reasoning,
                                 {request_of({{"messages", messages}, {"max_completion_tokens", 10}}, bearer)},
                                 options),
            "");
  EXPECT_EQ(family_shape_problem(
                ModelFamily::reasoning,
                {request_of({{"messages", messages}, {"max_completion_tokens", 10}, {"temperature", 1}}, bearer)},
                options),
            "the last request has a temperature");
  EXPECT_NE(family_shape_problem(ModelFamily::separate_reasoning, {request_of({{"messages", messages}})}, options), "");

  const auto fits = request_of({{"messages", messages}, {"max_tokens", 100}});
  const auto too_big = request_of({{"messages", messages}, {"max_tokens", 32768}});
  EXPECT_TRUE(local_refuses(nlohmann::json::parse(too_big.body), options.n_ctx));
  EXPECT_FALSE(local_refuses(nlohmann::json::parse(fits.body), options.n_ctx));
  EXPECT_EQ(family_shape_problem(ModelFamily::local, {too_big, fits, too_big, fits}, options), "");
  EXPECT_NE(family_shape_problem(ModelFamily::local, {fits}, options), "");  // the context never mattered
  const auto fitted = request_of({{"messages", messages}, {"max_tokens", options.n_ctx - 1000 - 16}});
  EXPECT_TRUE(fills_context(nlohmann::json::parse(fitted.body), options.n_ctx));
  EXPECT_EQ(family_shape_problem(ModelFamily::local, {fitted}, options), "");  // fitted before any refusal
  EXPECT_NE(family_shape_problem(ModelFamily::local, {too_big, too_big, fits}, options), "");
  EXPECT_NE(family_shape_problem(ModelFamily::local, {fits, too_big}, options), "");
  EXPECT_NE(family_shape_problem(ModelFamily::local,
                                 {request_of({{"messages", messages}, {"max_tokens", 32768}}, bearer), fits}, options),
            "");

  const std::string azure_target = "/openai/deployments/gpt-4.1/chat/completions?api-version=2024-10-21";
  EXPECT_EQ(family_shape_problem(ModelFamily::azure,
                                 {request_of(nlohmann::json::object(), {{"api-key", options.key}}, azure_target)},
                                 options),
            "");
  EXPECT_NE(family_shape_problem(ModelFamily::azure,
                                 {request_of(nlohmann::json::object(), {{"api-key", options.key}},
                                             "/openai/deployments/gpt-4.1/chat/completions")},
                                 options),
            "");
  EXPECT_NE(family_shape_problem(ModelFamily::azure, {request_of(nlohmann::json::object(), bearer, azure_target)},
                                 options),
            "");
}
