// From a stored search result to a PR through the dry-run forge, on a git copy of examples/:
// the result is saved before anything can fail, the change is the spliced source, re-verified on
// the simulated GPU (tests/bot/simulated_saxpy.h), a failing project build means no PR, and only
// an accepted, significant win is proposed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bot/forge/dry_run_forge.h"
#include "bot/publish/publish.h"
#include "config/config_loader.h"
#include "tests/bot/git_fixture.h"
#include "tests/bot/simulated_saxpy.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

class PublishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_publish_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path examples = fs::path(KB_SOURCE_DIR) / "examples";
    for (const char* part : {"src", "include", "kernelbot.toml"})
      fs::copy(examples / part, dir_ / part, fs::copy_options::recursive);
    init_repo_with_commit(dir_);
    config_ = kb::config::load_config(dir_ / "kernelbot.toml");
    result_ = nlohmann::json::parse(read_text(fs::path(KB_SOURCE_DIR) / "tests/bot/data/saxpy_result.json"))
                  .get<kb::search::SearchResult>();
  }
  void TearDown() override { fs::remove_all(dir_); }

  kb::search::CandidateRecord& best() {
    for (auto& c : result_.tree)
      if (c.id == result_.best_id) return c;
    throw std::logic_error("no best");
  }
  // The PR's text re-verified on a simulated GPU where it behaves as `winner` says.
  kb::bot::PublishOutcome publish(SimBehaviour winner = saxpy_winner_as_searched()) {
    gpu_ = std::make_unique<SimulatedEvaluator>(saxpy_cost(winner));
    kb::bot::DryRunForge forge(config_.root, kb::bot::GitRepo::discover(config_.root));
    return kb::bot::publish_result(config_, *config_.find_kernel("saxpy"), result_, forge,
                                   {gpu_.get(), "kernelbot run"});
  }
  nlohmann::json saved_result() const {
    return nlohmann::json::parse(read_text(dir_ / ".kernelbot/results/saxpy/result.json"));
  }
  static nlohmann::json without_record(nlohmann::json j) {
    j.erase("reverification");
    return j;
  }

  fs::path dir_;
  kb::config::Config config_;
  kb::search::SearchResult result_;
  std::unique_ptr<SimulatedEvaluator> gpu_;
};

TEST_F(PublishTest, DryRunSavesTheWinnerThenCommitsAndWritesThePr) {
  auto out = publish();
  ASSERT_TRUE(out.published) << out.note;
  const fs::path saved = dir_ / ".kernelbot/results/saxpy";
  // The search as it was, with the re-verification of the PR's text added.
  EXPECT_EQ(without_record(saved_result()), without_record(nlohmann::json(result_)));
  EXPECT_TRUE(saved_result()["reverification"]["passed"].get<bool>());
  std::string candidate = read_text(saved / "candidate.cu");
  EXPECT_NE(candidate.find("saxpy_vec4_kernel"), std::string::npos);
  EXPECT_NE(candidate.find("#define SAXPY_BLOCK 256"), std::string::npos);
  std::string patch = read_text(saved / "change.patch");
  EXPECT_NE(patch.find("--- a/src/saxpy.cu"), std::string::npos);
  EXPECT_EQ(out.pr, (dir_ / ".kernelbot/prs/kernelbot-saxpy/PR.md").string());
  std::string md = read_text(out.pr);
  EXPECT_NE(md.find("# kernelbot: saxpy 1.550x faster"), std::string::npos);
  EXPECT_NE(
      md.find(
          "git fetch origin kernelbot/saxpy\ngit show FETCH_HEAD:./src/saxpy.cu > /tmp/saxpy.cu\nkernelbot eval --kernel saxpy "
          "--candidate /tmp/saxpy.cu"),
      std::string::npos);
  EXPECT_EQ(read_text(dir_ / ".kernelbot/prs/kernelbot-saxpy/change.patch"), patch);
  // The local branch carries exactly the candidate file; the work tree still has the original.
  EXPECT_EQ(*file_in(dir_, "refs/heads/kernelbot/saxpy", "src/saxpy.cu"), candidate);
  auto info = commit_info(dir_, "refs/heads/kernelbot/saxpy");
  EXPECT_EQ(info.message.rfind("saxpy: 1.550x faster (verified on Simulated GPU)\n", 0), 0u) << info.message;
  EXPECT_EQ(info.author_name, "kernelbot");
  EXPECT_EQ(read_text(dir_ / "src/saxpy.cu"), read_text(fs::path(KB_SOURCE_DIR) / "examples/src/saxpy.cu"));
}

// The change is spliced into the text that was measured; a source edited since gets no PR.
TEST_F(PublishTest, AKernelInIgnoreKernelsIsNeitherProposedNorVerified) {
  config_.github.ignore_kernels = {"transpose", "saxpy"};
  auto out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_FALSE(out.failed);
  EXPECT_EQ(out.withheld, "ignored");
  EXPECT_NE(out.note.find("[github].ignore_kernels"), std::string::npos) << out.note;
  EXPECT_EQ(gpu_->evaluations(), 0) << "no GPU time for an ignored kernel";
  EXPECT_FALSE(fs::exists(dir_ / ".kernelbot/prs"));
  EXPECT_EQ(ref_target(dir_, "refs/heads/kernelbot/saxpy"), "");
}

TEST_F(PublishTest, ASourceChangedSinceTheSearchGetsNoPr) {
  {
    std::ofstream edit(dir_ / "src/saxpy.cu", std::ios::app);
    edit << "// edited after the search\n";
  }
  auto out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_TRUE(out.failed);
  EXPECT_NE(out.note.find("has changed since the search measured it"), std::string::npos) << out.note;
  EXPECT_EQ(gpu_->evaluations(), 0);                                       // refused before any GPU time is spent on it
  EXPECT_TRUE(fs::exists(dir_ / ".kernelbot/results/saxpy/result.json"));  // still saved first
  EXPECT_FALSE(fs::exists(dir_ / ".kernelbot/prs/kernelbot-saxpy/PR.md"));
}

TEST_F(PublishTest, TheResultIsSavedBeforeMakingThePrTextCanFail) {
  // An advisory probe (a caller-chosen argument measured at another value) is never published:
  // making its PR text throws, after the result is on disk.
  best().variant.source = "__global__ void k(float* y) { y[0] = 1; }\n"
                          "void launch_saxpy(const float* x, float* y, float a, int n) {\n"
                          "  int threads = 256;  // kernelbot: advisory probe of launch_saxpy's `threads`\n"
                          "  k<<<1, threads>>>(y);\n}\n";
  kb::bot::DryRunForge forge(config_.root, std::nullopt);
  SimulatedEvaluator gpu(saxpy_cost(saxpy_winner_as_searched()));
  EXPECT_THROW(kb::bot::publish_result(config_, *config_.find_kernel("saxpy"), result_, forge, {&gpu, "kernelbot run"}),
               std::runtime_error);
  EXPECT_EQ(gpu.evaluations(), 0);  // nothing to re-verify: making the PR's text failed first
  EXPECT_EQ(nlohmann::json::parse(read_text(dir_ / ".kernelbot/results/saxpy/result.json")), nlohmann::json(result_));
  EXPECT_EQ(read_text(dir_ / ".kernelbot/results/saxpy/candidate.cu"),
            "#define SAXPY_BLOCK 256  // kernelbot: the winner was compiled with -DSAXPY_BLOCK=256\n" +
                best().variant.source);
  EXPECT_FALSE(fs::exists(dir_ / ".kernelbot/prs"));
}

TEST_F(PublishTest, AFailingProjectBuildMeansNoPr) {
  config_.project.build = "grep -q saxpy_vec4_kernel src/saxpy.cu && echo 'linker says no' >&2 && exit 3";
  auto out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_TRUE(out.failed);
  EXPECT_NE(out.note.find("build failed"), std::string::npos) << out.note;
  EXPECT_NE(out.note.find("linker says no"), std::string::npos) << out.note;
  EXPECT_TRUE(fs::exists(dir_ / ".kernelbot/results/saxpy/result.json"));
  EXPECT_FALSE(fs::exists(dir_ / ".kernelbot/prs/kernelbot-saxpy/PR.md"));
  EXPECT_EQ(ref_target(dir_, "refs/heads/kernelbot/saxpy"), "");
}

TEST_F(PublishTest, APassingProjectBuildIsReportedInThePr) {
  // The commands see the changed file, and the real tree is left as it was.
  config_.project.build = "grep -q saxpy_vec4_kernel src/saxpy.cu";
  config_.project.test = "grep -q 'define SAXPY_BLOCK 256' src/saxpy.cu";
  auto out = publish();
  ASSERT_TRUE(out.published) << out.note;
  EXPECT_NE(read_text(out.pr).find("the project's own build/test commands passed on the changed tree"),
            std::string::npos);
  EXPECT_EQ(read_text(dir_ / "src/saxpy.cu").find("saxpy_vec4_kernel"), std::string::npos);
}

TEST_F(PublishTest, OnlyAnAcceptedSignificantWinAboveMinSpeedupIsProposed) {
  for (auto& t : best().eval.timings) t.significant = false;
  auto out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_NE(out.note.find("not an accepted, significant win"), std::string::npos) << out.note;

  SetUp();
  config_.bench.min_speedup = 2.0;
  out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_NE(out.note.find("under [bench].min_speedup 2.00x"), std::string::npos) << out.note;
  EXPECT_TRUE(fs::exists(dir_ / ".kernelbot/results/saxpy/result.json"));

  SetUp();
  result_.best_id.clear();
  out = publish();
  EXPECT_FALSE(out.published);
  EXPECT_EQ(out.note, "nothing beat the original beyond noise");
}

}  // namespace
