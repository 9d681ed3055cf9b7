// `kernelbot run --dry-run` on a GPU (label gpu) with the model-style fixture's hand-written
// replays (tests/fixtures/model_style): every kernel's winner, whatever its launch shape (a
// template launch helper, a lambda, a function pointer chosen by size, cudaLaunchKernelEx, a
// function-template launcher, a long file whose round-2 reply is an excerpt), must reach a
// dry-run PR: PR.md and change.patch under .kernelbot/prs/kernelbot-<kernel>/, the PR's text
// re-verified on the GPU. About two minutes on an H200.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/bot/git_fixture.h"
#include "tests/support/kernelbot_process.h"

namespace fs = std::filesystem;
using namespace kb::testing;

namespace {

const char* const kKernels[] = {"gemm", "row_softmax", "axpby", "vector_add", "scale", "relu", "leaky_relu"};

TEST(ModelStyleGpu, EveryKernelsReplayedWinnerReachesAReverifiedDryRunPr) {
  const fs::path dir = fs::temp_directory_path() / ("kb_model_style_gpu_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path repo = dir / "model_style";
  fs::copy(fs::path(KB_SOURCE_DIR) / "tests/fixtures/model_style", repo, fs::copy_options::recursive);
  init_repo_with_commit(repo);

  KernelbotRun r = run_kernelbot("--json run --dry-run --proposer replay --replay replays/", repo);
  const std::string log = "\n--- stdout:\n" + r.out + "\n--- stderr:\n" + r.err;
  EXPECT_EQ(r.exit_code, 0) << log;
  const nlohmann::json parsed = nlohmann::json::parse(r.out, nullptr, false);  // {"ok", ..., "kernels": [rows]}
  nlohmann::json rows = parsed.is_object() ? parsed.value("kernels", nlohmann::json()) : nlohmann::json();
  std::map<std::string, std::string> outcome;  // kernel -> the row's result
  if (rows.is_array())
    for (const auto& row : rows) outcome[row.value("kernel", "")] = row.value("result", "") + " " + row.dump();

  for (const char* kernel : kKernels) {
    SCOPED_TRACE(kernel);
    const fs::path pr = repo / ".kernelbot/prs" / (std::string("kernelbot-") + kernel);
    const bool written = fs::exists(pr / "PR.md") && fs::exists(pr / "change.patch");
    EXPECT_TRUE(written) << kernel << ": no dry-run PR under " << pr << " (the run's row: " << outcome[kernel] << ")"
                         << log;
    if (!written) continue;
    const std::string md = read_text(pr / "PR.md");
    EXPECT_NE(md.find("The timings above and the evidence below are from this re-verification of the PR's text."),
              std::string::npos)
        << kernel << ": PR.md does not say its text was re-verified\n"
        << md;
    EXPECT_NE(read_text(pr / "change.patch").find("+++ b/src/"), std::string::npos) << kernel;
  }
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
