// The PR contains exactly what was measured (issue #10, item 6), on the simulated GPU:
// - reverify_pr_text measures the PR's file byte for byte (no -D values, no extra flags) and
//   judges it as a search's winner is judged; record_mismatch tells a record of other texts;
// - publish_result against the fake GitHub: a spliced text that fails re-verification, or is
//   slower, gets no PR (nothing pushed, no request) while the result is still saved; a passing
//   one gets a PR whose title, body and commit carry the re-verification's numbers and whose file
//   is the text that was measured; without a GPU only a matching, passed record opens a PR;
// - a winner the search took from the archive is re-verified and re-timed in this run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bot/change/result_store.h"
#include "bot/change/reverify.h"
#include "bot/forge/dry_run_forge.h"
#include "bot/forge/github_forge.h"
#include "bot/publish/publish.h"
#include "common/sha256.h"
#include "config/config_loader.h"
#include "search/archive/archive.h"
#include "search/engine/search_engine.h"
#include "tests/bot/fake_github.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"
#include "tests/search/scripted_proposer.h"
#include "tests/search/test_project.h"

namespace fs = std::filesystem;
using namespace kb;
using namespace kb::testing;

namespace {

const std::string kToken = "ghs_reverify_token";
const std::string kData = std::string(KB_SOURCE_DIR) + "/tests/bot/data/";

search::SearchResult saxpy_fixture() {
  return nlohmann::json::parse(read_text(kData + "saxpy_result.json")).get<search::SearchResult>();
}

// The evaluator itself breaking (the harness missing, the GPU gone): not the text's fault.
class BrokenEvaluator : public Evaluator {
 public:
  DeviceInfo device() override { return DeviceInfo{}; }
  CompiledVariant compile(const config::KernelSpec&, const Variant&) override {
    throw std::runtime_error("kernelbot-harness not found");
  }
  EvalResult evaluate(const config::KernelSpec&, const CompiledVariant&, const CompiledVariant&,
                      const EvalOptions&) override {
    throw std::logic_error("unreachable");
  }
};

// Forwards to the simulated GPU and keeps every variant it was asked to compile.
class RecordingEvaluator : public Evaluator {
 public:
  explicit RecordingEvaluator(SimCost cost) : gpu(std::move(cost)) {}
  DeviceInfo device() override { return gpu.device(); }
  CompiledVariant compile(const config::KernelSpec& spec, const Variant& variant) override {
    compiled.push_back(variant);
    return gpu.compile(spec, variant);
  }
  EvalResult evaluate(const config::KernelSpec& spec, const CompiledVariant& baseline, const CompiledVariant& candidate,
                      const EvalOptions& options) override {
    asked.push_back(options);
    return gpu.evaluate(spec, baseline, candidate, options);
  }
  SimulatedEvaluator gpu;
  std::vector<Variant> compiled;
  std::vector<EvalOptions> asked;  // the options of each evaluate() call
};

// ---------------------------------------------------------------------------------------------
// reverify_pr_text and record_mismatch, on examples/ as it is in the source tree (read only).

class ReverifyPrText : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = config::load_config(fs::path(KB_SOURCE_DIR) / "examples/kernelbot.toml");
    result_ = saxpy_fixture();
    change_ = bot::make_source_change("src/saxpy.cu", result_.original_source(), "launch_saxpy",
                                      result_.best()->variant);
  }
  search::Reverification reverify(SimBehaviour winner) {
    gpu_ = std::make_unique<RecordingEvaluator>(saxpy_cost(winner));
    return bot::reverify_pr_text(config_, *config_.find_kernel("saxpy"), change_, result_.best_id, *gpu_,
                                 "kernelbot run");
  }

  config::Config config_;
  search::SearchResult result_;
  bot::SourceChange change_;
  std::unique_ptr<RecordingEvaluator> gpu_;
};

TEST_F(ReverifyPrText, MeasuresThePrsFileByteForByteAgainstTheOriginal) {
  ASSERT_FALSE(result_.best()->variant.defines.empty());  // the winner was built with -DSAXPY_BLOCK=256
  config_.verify.sanitize = true;                         // the search's settings are the re-verification's
  auto record = reverify(SimBehaviour{50, false, false, false});
  EXPECT_TRUE(record.ran);
  EXPECT_TRUE(record.passed) << record.failure;
  EXPECT_EQ(record.failure, "");
  EXPECT_EQ(record.candidate_id, "r2-i0-b0");
  EXPECT_EQ(record.path, "src/saxpy.cu");
  EXPECT_EQ(record.original_sha256, sha256_hex(read_text(fs::path(KB_SOURCE_DIR) / "examples/src/saxpy.cu")));
  EXPECT_EQ(record.text_sha256, sha256_hex(change_.updated));
  EXPECT_EQ(record.by, "kernelbot run");
  EXPECT_FALSE(record.at.empty());
  EXPECT_EQ(record.eval.verdict, Verdict::accepted);
  EXPECT_DOUBLE_EQ(record.eval.speedup, 2.0);  // this measurement's, not the search's 1.55x
  EXPECT_EQ(record.eval.device.name, "Simulated GPU");
  EXPECT_DOUBLE_EQ(record.min_speedup, config_.bench.min_speedup);
  EXPECT_DOUBLE_EQ(record.strict_speedup, config_.verify.strict_speedup);
  // Two compiles (the original and the PR's text) and one evaluation of the one against the other,
  // timed, with the search's sanitizer setting.
  ASSERT_EQ(gpu_->compiled.size(), 2u);
  EXPECT_EQ(gpu_->compiled[0].source, change_.original);
  EXPECT_EQ(gpu_->compiled[1].source, change_.updated);
  // The PR changes no build flags, so the text is measured without the winner's -D values.
  EXPECT_TRUE(gpu_->compiled[1].defines.empty());
  EXPECT_TRUE(gpu_->compiled[1].nvcc_flags.empty());
  ASSERT_EQ(gpu_->asked.size(), 1u);
  EXPECT_TRUE(gpu_->asked[0].time);
  EXPECT_TRUE(gpu_->asked[0].sanitize);
  EXPECT_TRUE(record.sanitize);
}

TEST_F(ReverifyPrText, TheWinnerIsSanitizedByDefaultEvenWhenCandidatesAreNot) {
  config_.verify.sanitize = false;  // no candidate of the search ran under compute-sanitizer
  ASSERT_TRUE(config_.verify.sanitize_winner);
  auto record = reverify(SimBehaviour{50, false, false, false});
  ASSERT_EQ(gpu_->asked.size(), 1u);
  EXPECT_TRUE(gpu_->asked[0].sanitize) << "the PR's text runs under the tools before any PR";
  EXPECT_TRUE(record.sanitize);
}

TEST_F(ReverifyPrText, SanitizeWinnerOffLeavesTheToolsOut) {
  config_.verify.sanitize = false;
  config_.verify.sanitize_winner = false;
  auto record = reverify(SimBehaviour{50, false, false, false});
  ASSERT_EQ(gpu_->asked.size(), 1u);
  EXPECT_FALSE(gpu_->asked[0].sanitize);
  EXPECT_FALSE(record.sanitize);
}

TEST_F(ReverifyPrText, AWrongSlowFailingOrTooSmallWinDoesNotPass) {
  auto wrong = reverify(SimBehaviour{50, false, true, false});
  EXPECT_FALSE(wrong.passed);
  EXPECT_EQ(wrong.eval.verdict, Verdict::wrong_result);
  EXPECT_EQ(wrong.failure.rfind("wrong_result: output y differs", 0), 0u) << wrong.failure;

  auto slower = reverify(SimBehaviour{120, false, false, false});
  EXPECT_FALSE(slower.passed);
  EXPECT_EQ(slower.failure, "correct, but not faster beyond the noise (0.833x)");

  auto broken = reverify(SimBehaviour{50, true, false, false});
  EXPECT_FALSE(broken.passed);
  EXPECT_EQ(broken.eval.verdict, Verdict::compile_error);
  EXPECT_NE(broken.failure.find("the PR's file does not compile: candidate.cu(3): error: identifier"), std::string::npos)
      << broken.failure;

  auto crashed = reverify(SimBehaviour{50, false, false, true});
  EXPECT_FALSE(crashed.passed);
  EXPECT_EQ(crashed.eval.verdict, Verdict::crashed);

  config_.bench.min_speedup = 2.0;
  auto small = reverify(saxpy_winner_as_searched());
  EXPECT_FALSE(small.passed);
  EXPECT_EQ(small.failure, "1.550x is under [bench].min_speedup 2.00x");
}

TEST_F(ReverifyPrText, AnEvaluatorThatBreaksIsAnInfrastructureErrorNotAThrow) {
  BrokenEvaluator broken;
  search::Reverification record;
  ASSERT_NO_THROW(record = bot::reverify_pr_text(config_, *config_.find_kernel("saxpy"), change_, result_.best_id,
                                                 broken, "kernelbot pr"));
  EXPECT_TRUE(record.ran);
  EXPECT_FALSE(record.passed);
  EXPECT_EQ(record.eval.verdict, Verdict::infra_error);
  EXPECT_NE(record.failure.find("kernelbot-harness not found"), std::string::npos) << record.failure;
}

TEST_F(ReverifyPrText, ARecordVouchesOnlyForTheTextsItMeasured) {
  EXPECT_EQ(*bot::record_mismatch(search::Reverification{}, change_, result_.best_id),
            "the result carries no re-verification of the PR's text");
  const auto record = reverify(saxpy_winner_as_searched());
  EXPECT_EQ(bot::record_mismatch(record, change_, result_.best_id), std::nullopt);
  EXPECT_NE(bot::record_mismatch(record, change_, "r1-i0-b0")->find("not of the winner r1-i0-b0"), std::string::npos);

  bot::SourceChange other_text = change_;
  other_text.updated += "// one more line\n";
  EXPECT_EQ(*bot::record_mismatch(record, other_text, result_.best_id),
            "the PR's text of src/saxpy.cu differs from the text that was re-verified");
  bot::SourceChange other_original = change_;
  other_original.original += "\n";
  EXPECT_NE(bot::record_mismatch(record, other_original, result_.best_id)->find("another original text"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// publish_result against the fake GitHub, on a git copy of examples/ with a bare repository to push to.

class ReverifyPublish : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_reverify_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    repo_ = dir_ / "examples";
    copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", repo_);
    init_repo_with_commit(repo_);
    bare_ = dir_ / "origin.git";
    init_bare_repo(bare_);
    config_ = config::load_config(repo_ / "kernelbot.toml");
    config_.github.repository = "acme/examples";
    config_.github.remote = bare_.string();
    result_ = saxpy_fixture();
  }
  void TearDown() override { fs::remove_all(dir_); }

  bot::PublishOutcome publish(FakeGitHub& github, Evaluator* gpu) {
    bot::GitHubRetryPolicy policy;
    policy.sleep = [](double) {};
    config_.github.api_url = github.api_url();
    bot::GitHubForge forge(config_.github, std::move(*bot::GitRepo::discover(repo_)), bare_.string(), kToken,
                           std::make_unique<bot::GitHubClient>(github.api_url(), "acme/examples", kToken, policy));
    return bot::publish_result(config_, *config_.find_kernel("saxpy"), result_, forge, {gpu, "kernelbot run"});
  }
  search::SearchResult saved() const { return bot::load_result(repo_, "saxpy"); }

  // Nothing went to GitHub or to the remote, and nothing was committed locally either.
  void expect_no_pr(const FakeGitHub& github) const {
    EXPECT_TRUE(github.requests().empty());
    EXPECT_TRUE(github.pulls().empty());
    EXPECT_EQ(ref_target(bare_, "refs/heads/kernelbot/saxpy"), "");
    EXPECT_EQ(ref_target(repo_, "refs/heads/kernelbot/saxpy"), "");
  }

  fs::path dir_, repo_, bare_;
  config::Config config_;
  search::SearchResult result_;
};

TEST_F(ReverifyPublish, ASplicedTextThatFailsReverificationOpensNoPr) {
  FakeGitHub github("acme/examples", kToken);
  SimulatedEvaluator gpu(saxpy_cost(SimBehaviour{64.5, false, true, false}));  // the search said 1.55x and correct
  auto out = publish(github, &gpu);
  EXPECT_FALSE(out.published);
  EXPECT_TRUE(out.vetoed);
  EXPECT_FALSE(out.failed);  // a verdict, not a crash
  EXPECT_EQ(out.note.rfind("no PR: the PR's file failed re-verification: wrong_result: output y differs", 0), 0u)
      << out.note;
  EXPECT_EQ(gpu.evaluations(), 1);
  expect_no_pr(github);
  // The search and the failed record are saved, for a person (or `kernelbot pr` later) to see.
  auto kept = saved();
  EXPECT_EQ(kept.best_id, "r2-i0-b0");
  EXPECT_TRUE(kept.reverification.ran);
  EXPECT_FALSE(kept.reverification.passed);
  EXPECT_EQ(kept.reverification.eval.verdict, Verdict::wrong_result);
  EXPECT_TRUE(fs::exists(repo_ / ".kernelbot/results/saxpy/candidate.cu"));
  EXPECT_TRUE(fs::exists(repo_ / ".kernelbot/results/saxpy/change.patch"));
}

TEST_F(ReverifyPublish, ASplicedTextThatIsSlowerOpensNoPr) {
  FakeGitHub github("acme/examples", kToken);
  SimulatedEvaluator gpu(saxpy_cost(SimBehaviour{120, false, false, false}));
  auto out = publish(github, &gpu);
  EXPECT_FALSE(out.published);
  EXPECT_TRUE(out.vetoed);
  EXPECT_EQ(out.note, "no PR: the PR's file failed re-verification: correct, but not faster beyond the noise (0.833x)");
  expect_no_pr(github);
  EXPECT_FALSE(saved().reverification.passed);
}

TEST_F(ReverifyPublish, APassingTextIsPublishedWithItsOwnNumbersAndIsTheTextMeasured) {
  FakeGitHub github("acme/examples", kToken);
  SimulatedEvaluator gpu(saxpy_cost(SimBehaviour{50, false, false, false}));  // 2.00x now; the search said 1.55x
  auto out = publish(github, &gpu);
  ASSERT_TRUE(out.published) << out.note;
  ASSERT_EQ(github.pulls().size(), 1u);
  const auto pr = github.pulls()[0];
  EXPECT_EQ(pr.title, "kernelbot: saxpy 2.00x faster");
  // After the invisible first line that records the change and its speedup (bot/pr/pr_lifecycle.h).
  EXPECT_EQ(pr.body.rfind("<!-- kernelbot-change: sha256:", 0), 0u) << pr.body.substr(0, 300);
  // Then the line that says what it was measured on, then the text.
  EXPECT_NE(pr.body.find(" 2.0000x -->\n<!-- kernelbot-measured-on: src/saxpy.cu sha256:"), std::string::npos)
      << pr.body.substr(0, 300);
  EXPECT_NE(pr.body.find(" -->\n**`saxpy` is 2.00x faster** (geometric mean over 1 size set): this PR's file"),
            std::string::npos)
      << pr.body.substr(0, 300);
  EXPECT_NE(pr.body.find("| n=1048576 | 100.00 us | 50.00 us | **2.00x** |"), std::string::npos) << pr.body;
  EXPECT_NE(pr.body.find("timed by `kernelbot run` on Simulated GPU"), std::string::npos) << pr.body;
  EXPECT_NE(pr.body.find("The search had measured its winner `r2-i0-b0` at 1.555x."), std::string::npos) << pr.body;
  EXPECT_EQ(pr.body.find("71.42 us"), std::string::npos);  // none of the search's own timings
  auto commit = commit_info(bare_, "refs/heads/kernelbot/saxpy");
  EXPECT_EQ(commit.message.rfind("saxpy: 2.00x faster (verified on Simulated GPU)\n\nn=1048576: 100.00 us -> 50.00 us",
                                 0),
            0u)
      << commit.message;
  // The pushed file is, byte for byte, the text the re-verification measured.
  auto pushed = file_in(bare_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu");
  ASSERT_TRUE(pushed);
  auto kept = saved();
  EXPECT_TRUE(kept.reverification.passed);
  EXPECT_EQ(kept.reverification.text_sha256, sha256_hex(*pushed));
  EXPECT_EQ(kept.reverification.original_sha256, sha256_hex(read_text(repo_ / "src/saxpy.cu")));
  EXPECT_DOUBLE_EQ(out.reverification.eval.speedup, 2.0);
}

TEST_F(ReverifyPublish, WithoutAGpuOnlyAPassedRecordOfTheSameTextsOpensAPr) {
  FakeGitHub github("acme/examples", kToken);
  auto none = publish(github, nullptr);
  EXPECT_FALSE(none.published);
  EXPECT_TRUE(none.failed);
  EXPECT_NE(none.note.find("carries no re-verification of the PR's text, and this job has no GPU"), std::string::npos)
      << none.note;
  expect_no_pr(github);

  add_simulated_reverification(config_, result_);
  const auto good = result_.reverification;
  result_.reverification.text_sha256 = sha256_hex("another text");
  auto other = publish(github, nullptr);
  EXPECT_TRUE(other.failed);
  EXPECT_NE(other.note.find("differs from the text that was re-verified"), std::string::npos) << other.note;
  expect_no_pr(github);

  add_simulated_reverification(config_, result_, saxpy_cost(SimBehaviour{120, false, false, false}));
  auto slower = publish(github, nullptr);
  EXPECT_TRUE(slower.vetoed);
  EXPECT_NE(slower.note.find("not faster beyond the noise"), std::string::npos) << slower.note;
  expect_no_pr(github);

  result_.reverification = good;
  auto ok = publish(github, nullptr);
  ASSERT_TRUE(ok.published) << ok.note;
  EXPECT_EQ(github.pulls().at(0).title, "kernelbot: saxpy 1.550x faster");
}

TEST_F(ReverifyPublish, AnEvaluatorThatFailsIsAFailureNotAVeto) {
  FakeGitHub github("acme/examples", kToken);
  BrokenEvaluator broken;
  auto out = publish(github, &broken);
  EXPECT_FALSE(out.published);
  EXPECT_TRUE(out.failed);
  EXPECT_FALSE(out.vetoed);
  EXPECT_EQ(out.note, "no PR: the PR's text could not be re-verified: kernelbot-harness not found");
  expect_no_pr(github);
}

// ---------------------------------------------------------------------------------------------
// A winner from the archive: the search reuses an earlier run's record; the PR's text is measured
// again in this run, and the PR says this run's numbers.

TEST(ReverifyArchiveWinner, IsReverifiedAndRetimedInThisRun) {
  auto source = [](const std::string& body) {
    return "__global__ void k_kernel(float* y, int n) { " + body +
           " }\nvoid launch_k(float* y, int n) { k_kernel<<<1, 32>>>(y, n); }\n";
  };
  TestProject p(source("/* SIM_TIME=100 */"));
  p.config.search.rounds = 1;
  p.config.search.ideas_per_round = 1;
  p.config.search.branches_per_idea = 1;
  const std::string fast = source("/* SIM_TIME=25 */");
  ScriptedProposer proposer(
      [](const search::ProposalContext&) {
        return std::vector<search::ProposedIdea>{idea("quarter", "memory_access")};
      },
      [&](const search::BranchRequest&) {
        return std::vector<search::Branch>{{Variant{fast, {}, {}, "fast"}, ""}};
      });
  search::Archive archive(p.root / "archive.sqlite");
  auto search = [&](Evaluator& gpu) {
    search::SearchRequest request;
    request.config = &p.config;
    request.spec = &p.spec();
    request.evaluator = &gpu;
    request.proposer = &proposer;
    request.archive = &archive;
    return search::run_search(request);
  };

  SimulatedEvaluator earlier;  // last night: 100 us -> 25 us, 4x, archived
  ASSERT_DOUBLE_EQ(search(earlier).best()->speedup(), 4.0);

  // Tonight the same text runs at 50 us: the archive's 4x is not what this GPU does now.
  SimulatedEvaluator tonight([](const Variant& v) {
    auto b = markers_cost(v);
    if (b.time_us == 25) b.time_us = 50;
    return b;
  });
  auto result = search(tonight);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_TRUE(result.best()->from_archive);
  EXPECT_DOUBLE_EQ(result.best()->speedup(), 4.0);  // the search reused the archive's number
  const int compiles = tonight.compiles(), evaluations = tonight.evaluations();

  bot::DryRunForge forge(p.root, std::nullopt);
  auto out = bot::publish_result(p.config, p.spec(), result, forge, {&tonight, "kernelbot run"});
  ASSERT_TRUE(out.published) << out.note;
  EXPECT_EQ(tonight.evaluations(), evaluations + 1);  // the PR's text, evaluated in this run
  EXPECT_EQ(tonight.compiles(), compiles + 2);        // the original and the PR's text
  EXPECT_DOUBLE_EQ(out.reverification.eval.speedup, 2.0);
  EXPECT_EQ(out.reverification.candidate_id, result.best_id);
  std::string md = read_text(out.pr);
  EXPECT_EQ(md.rfind("# kernelbot: k 2.00x faster\n", 0), 0u) << md.substr(0, 200);
  EXPECT_NE(md.find("The search took this winner from kernelbot's archive"), std::string::npos) << md;
  EXPECT_NE(md.find("The search had measured its winner `" + result.best_id +
                    "` at 4.00x, in an earlier run (kernelbot's archive)."),
            std::string::npos)
      << md;
}

}  // namespace
