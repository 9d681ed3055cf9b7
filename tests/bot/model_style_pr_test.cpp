// From a verified winner to the PR's file, on the model-style fixture (tests/fixtures/model_style):
// launchers that launch through a host launch-helper template, a lambda, a function pointer
// chosen by a size switch and cudaLaunchKernelEx, a function-template launcher, helpers in
// anonymous and named namespaces, a long file without a final newline. Its hand-written replays
// drive the real search engine on the simulated GPU (every reply correct and faster); then each
// accepted candidate goes through bot::make_source_change as the PR step does. The PR's file must
// be exactly the text that was verified (the variant's source, its -D defaults written into its
// #defines), keep the original's missing final newline, compile with nvcc, and say what it edited.
//
// On held-out real code these were where verified winners were lost: a 21x GEMM whose launcher
// calls a template launch helper ("the new code has no definition of the launcher ... that
// launches a kernel the scanner can read"), and helpers in an anonymous namespace dropped by the
// splice ("identifier kThreads is undefined" at re-verification).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "bot/change/source_splicer.h"
#include "config/config_loader.h"
#include "search/engine/search_engine.h"
#include "search/factory/proposer_factory.h"
#include "search/llm/chat_backend.h"
#include "search/llm/llm_proposer.h"
#include "search/llm/prompt_source.h"
#include "search/llm/replay_log.h"
#include "tests/search/simulated_evaluator.h"

namespace fs = std::filesystem;
using namespace kb;
using namespace kb::search;

namespace {

const fs::path kFixture = fs::path(KB_SOURCE_DIR) / "tests/fixtures/model_style";

struct PrCase {
  const char* kernel;
  const char* shape;        // what the test name says about the launch
  const char* winner;       // the candidate that must win
  const char* fast_marker;  // code with this runs faster than the other replies (the round-2 reply)
};

void PrintTo(const PrCase& c, std::ostream* os) { *os << c.kernel << " (" << c.shape << ")"; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool ends_with_newline(const std::string& text) { return !text.empty() && text.back() == '\n'; }

// Where two texts first differ, by line, for a failure message that a 24,000-character diff is not.
std::string first_difference(const std::string& want, const std::string& got) {
  size_t at = 0;
  while (at < want.size() && at < got.size() && want[at] == got[at]) ++at;
  if (at == want.size() && at == got.size()) return "identical";
  const size_t line = 1 + static_cast<size_t>(std::count(want.begin(), want.begin() + static_cast<long>(at), '\n'));
  auto line_at = [at](const std::string& text) {
    if (at >= text.size()) return std::string("<end of text>");
    const size_t begin = text.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t from = begin == std::string::npos || at == 0 ? 0 : begin + 1;
    return text.substr(from, std::min(text.find('\n', at), text.size()) - from);
  };
  return "sizes " + std::to_string(want.size()) + " (verified) and " + std::to_string(got.size()) +
         " (PR file); first difference at line " + std::to_string(line) + ":\n  verified: " + line_at(want) +
         "\n  PR file:  " + line_at(got);
}

// The text the judge compiled for `v`: its source with its -D values written as the defaults of
// the #defines (how the PR carries a tuned knob). A missing final newline of the original is the
// file's, not the candidate's: the PR keeps it, so it is compared apart.
std::string verified_text(const Variant& v, bool original_ends_with_newline) {
  std::vector<std::string> missing;
  std::string text = v.defines.empty() ? v.source : cuda_source::apply_macro_defaults(v.source, v.defines, missing);
  if (!original_ends_with_newline)
    while (ends_with_newline(text)) text.pop_back();
  return text;
}

// nvcc -arch=sm_90 -c on `text`, written where the original lies (so its relative includes
// resolve); "" when it compiles, else nvcc's output. Skipped ("") without nvcc.
std::string nvcc_errors(const std::string& text, const fs::path& original, const std::string& tag) {
  const std::string nvcc = KB_NVCC;
  if (nvcc.empty() || !fs::exists(nvcc)) return "";
  const fs::path dir = fs::temp_directory_path() / ("kb_model_style_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path src = dir / (tag + "_" + original.filename().string());
  std::ofstream(src, std::ios::binary) << text;
  const std::string cmd = nvcc + " -std=c++17 -arch=sm_90 -I" + original.parent_path().string() + " -c " +
                          src.string() + " -o " + src.string() + ".o 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[4096];
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pipe ? pclose(pipe) : -1;
  std::error_code ec;
  fs::remove_all(dir, ec);
  return status == 0 ? "" : (out.empty() ? "nvcc failed (status " + std::to_string(status) + ")" : out);
}

// The PR step on one accepted candidate, with every failure said in the PR step's words.
void expect_pr_change(const config::Config& config, const config::KernelSpec& spec, const std::string& original,
                      const CandidateRecord& c) {
  SCOPED_TRACE(spec.name + " " + c.id);
  const std::string path = fs::relative(config.resolve(spec.source), config.root).generic_string();
  bot::SourceChange change;
  try {
    change = bot::make_source_change(path, original, spec.launcher, c.variant);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the verified candidate " << c.id << " of " << spec.name << " (" << c.variant.source.size()
                  << " characters) gets no PR change: make_source_change threw: " << e.what();
    return;
  }
  const std::string want = verified_text(c.variant, ends_with_newline(original));
  EXPECT_TRUE(change.updated == want) << "the PR's " << path << " is not the text that was verified: "
                                      << first_difference(want, change.updated);
  EXPECT_EQ(ends_with_newline(change.updated), ends_with_newline(original))
      << "the PR's " << path
      << (ends_with_newline(original) ? " lost the original's final newline"
                                      : " gained a final newline the original does not have");
  EXPECT_FALSE(change.edits.empty()) << "the PR change of " << path << " names no edit";
  EXPECT_FALSE(change.empty()) << "the PR change of " << path << " changes nothing";
  const std::string errors = nvcc_errors(change.updated, config.resolve(spec.source), spec.name + "_" + c.id);
  EXPECT_EQ(errors, "") << "the PR's " << path << " does not compile with nvcc -arch=sm_90";
}

// The replay's verdicts on the simulated GPU: the original 300 us, every reply's code 100 us,
// the code with `fast_marker` 50 us. A candidate of src/ops.cu without the rest of the file (an
// excerpt reply that was not spliced into it) does not compile, as nvcc would find grid_for and
// detail::launch_kernel undefined.
kb::testing::SimCost fixture_cost(const std::string& original, const std::string& fast_marker) {
  const bool long_file = original.find("launch_rmsnorm") != std::string::npos;
  return [original, fast_marker, long_file](const Variant& v) {
    kb::testing::SimBehaviour b;
    b.time_us = v.source == original ? 300 : 100;
    if (!fast_marker.empty() && v.source.find(fast_marker) != std::string::npos) b.time_us = 50;
    b.compile_error = long_file && v.source.find("launch_rmsnorm") == std::string::npos;
    return b;
  };
}

std::string tree_of(const SearchResult& result) {
  std::string out;
  for (const auto& c : result.tree) out += "\n  " + c.id + ": " + to_string(c.verdict()) + " " + c.reason();
  return out;
}

class ModelStylePr : public ::testing::TestWithParam<PrCase> {};

TEST_P(ModelStylePr, EveryVerifiedWinnerBecomesThePrFileItWasVerifiedAs) {
  const PrCase param = GetParam();
  auto config = config::load_config(kFixture / "kernelbot.toml");
  config.search.screening = false;  // every candidate's full verdict, as the PR step sees it
  const auto* spec = config.find_kernel(param.kernel);
  ASSERT_NE(spec, nullptr) << param.kernel;
  const std::string original = read_text(config.resolve(spec->source));
  ASSERT_FALSE(original.empty());

  kb::testing::SimulatedEvaluator gpu(fixture_cost(original, param.fast_marker));
  ProposerOptions options;
  options.name = "replay";
  options.replay_file = kFixture / "replays";
  auto proposer = make_proposer(config, *spec, options);
  SearchResult result = run_search(SearchRequest{&config, spec, &gpu, {}, proposer.get(), nullptr, {}});

  ASSERT_NE(result.best(), nullptr) << "no winner: " << result.stop_reason << tree_of(result);
  EXPECT_EQ(result.best_id, param.winner) << tree_of(result);
  int accepted = 0;
  for (const auto& c : result.tree) {
    if (c.verdict() != Verdict::accepted || c.variant.source == original) continue;
    ++accepted;
    expect_pr_change(config, *spec, original, c);
  }
  EXPECT_GE(accepted, 1) << tree_of(result);

  // Every recorded reply was asked for.
  const auto* llm = dynamic_cast<const LlmProposer*>(proposer.get());
  ASSERT_NE(llm, nullptr);
  const auto* backend = dynamic_cast<const ReplayChatBackend*>(&llm->backend());
  ASSERT_NE(backend, nullptr);
  std::string unasked;
  for (const auto& k : backend->unasked()) unasked += k + "; ";
  EXPECT_EQ(unasked, "");
}

INSTANTIATE_TEST_SUITE_P(
    ModelStyle, ModelStylePr,
    ::testing::Values(PrCase{"gemm", "template launch helper, long file, excerpt reply", "r2-i0-b0",
                             "gemm_register_tiled_kernel"},
                      PrCase{"row_softmax", "function-pointer dispatch, named-namespace helpers", "r1-i0-b0", ""},
                      PrCase{"axpby", "function-template launcher, cudaLaunchKernelEx", "r1-i0-b0", ""},
                      PrCase{"vector_add", "detail launch-helper template", "r1-i0-b0", ""},
                      PrCase{"scale", "lambda", "r1-i0-b0", ""},
                      PrCase{"relu", "size switch through a function pointer", "r1-i0-b0", ""},
                      PrCase{"leaky_relu", "cudaLaunchKernelEx", "r1-i0-b0", ""}),
    [](const ::testing::TestParamInfo<PrCase>& param_info) { return std::string(param_info.param.kernel); });

// The replay without its record of which prompts showed the excerpt, so the proposer decides as a
// live run does; it keeps every request it was asked.
class UnmarkedReplay : public ChatBackend {
 public:
  explicit UnmarkedReplay(const fs::path& file) : inner_(file) {}
  ChatReply complete(const ChatRequest& request) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      asked_.push_back(request);
    }
    ChatReply reply = inner_.complete(request);
    reply.to_excerpt = false;
    return reply;
  }
  TokenUsage usage() const override { return inner_.usage(); }
  std::string describe() const override { return "unmarked " + inner_.describe(); }
  std::vector<ChatRequest> asked() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return asked_;
  }

 private:
  ReplayChatBackend inner_;
  mutable std::mutex mutex_;
  std::vector<ChatRequest> asked_;
};

TEST(ModelStylePrompt, ASeedGrownPastThePromptLimitIsShownAsTheLaunchersExcerpt) {
  auto config = config::load_config(kFixture / "kernelbot.toml");
  config.search.screening = false;
  const auto* spec = config.find_kernel("gemm");
  ASSERT_NE(spec, nullptr);
  const std::string original = read_text(config.resolve(spec->source));
  ASSERT_LT(original.size(), kWholeSourceMaxChars) << "src/ops.cu must be shown whole in round 1";

  auto owned = std::make_unique<UnmarkedReplay>(kFixture / "replays/gemm.jsonl");
  UnmarkedReplay* backend = owned.get();
  LlmProposer proposer("replay", config, *spec, std::move(owned));
  kb::testing::SimulatedEvaluator gpu(fixture_cost(original, "gemm_register_tiled_kernel"));
  SearchResult result = run_search(SearchRequest{&config, spec, &gpu, {}, &proposer, nullptr, {}});

  const CandidateRecord* seed = nullptr;
  for (const auto& c : result.tree)
    if (c.id == "r1-i0-b0") seed = &c;
  ASSERT_NE(seed, nullptr) << tree_of(result);
  ASSERT_EQ(seed->verdict(), Verdict::accepted) << seed->reason();
  EXPECT_GT(seed->variant.source.size(), kWholeSourceMaxChars) << "the round-1 reply must grow past the limit";

  bool round2_seen = false;
  for (const auto& r : backend->asked()) {
    // The prompts that show the file (a repair's shows the failed code and its errors).
    if (r.key.rfind("r2", 0) != 0 || (r.step != "ideas" && r.step != "implement")) continue;
    round2_seen = true;
    const std::string& user = r.messages.back().content;
    EXPECT_NE(user.find("the rest of the file is unchanged and not shown"), std::string::npos)
        << r.step << " " << r.key << ": round 2's seed (" << seed->variant.source.size() << " characters, over the "
        << kWholeSourceMaxChars << " a prompt shows) is not shown as the launcher's excerpt; the prompt shows "
        << (user.find("launch_rmsnorm") != std::string::npos ? "the whole file (cut)" : "something else");
    EXPECT_EQ(user.find("launch_rmsnorm"), std::string::npos) << r.key << ": an unrelated launcher is in the prompt";
  }
  EXPECT_TRUE(round2_seen) << "round 2 asked nothing: " << result.stop_reason << tree_of(result);
  // The reply, written for the excerpt, spliced into the round-1 file, compiles and wins.
  ASSERT_NE(result.best(), nullptr) << result.stop_reason << tree_of(result);
  EXPECT_EQ(result.best_id, "r2-i0-b0") << "the round-2 reply was not spliced into the whole file" << tree_of(result);
}

}  // namespace
