// The PR's text re-verified for every architecture the project builds (label gpu): `kernelbot run
// --dry-run` on a git copy of examples/ whose [project] target_archs is sm_80 and sm_90, with a
// hand-written replay whose one candidate is a file of tests/profiler/candidates/. The search
// measures on the judge's GPU only, so a candidate whose path for older GPUs is wrong wins it; the
// re-verification before the PR runs the compute_80 build and vetoes the PR, naming sm_80. An
// honest candidate with a path per architecture gets its dry-run PR, which lists each
// architecture and what was done for it. About two minutes on an H200.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/bot/git_fixture.h"
#include "tests/support/hand_written_candidates.h"
#include "tests/support/kernelbot_process.h"
#include "tests/support/toml_text.h"

namespace kb::arch_run_gpu {
namespace {
namespace fs = std::filesystem;
using kb::testing::read_text;
using kb::testing::write_text;

// One round of one idea of one branch: the idea, then `candidate` as the model's whole-file reply.
std::string replay_of(const std::string& candidate) {
  const std::string idea = "Launch 256-thread blocks with a path per GPU architecture the project builds for";
  nlohmann::json ideas_reply = nlohmann::json::array({{{"text", idea},
                                                       {"family", "parallelism"},
                                                       {"rationale", "32-thread blocks cap occupancy"},
                                                       {"seed", "baseline"}}});
  std::string out;
  out += nlohmann::json{{"kernelbot_replay", 1}, {"kernel", "saxpy"}, {"model", "hand-written"}}.dump() + "\n";
  out += nlohmann::json{{"step", "ideas"},
                        {"key", "r1"},
                        {"request", {{"round", 1}, {"ideas_wanted", 1}}},
                        {"reply", "saxpy_kernel runs 32-thread blocks.\n\n```json\n" + ideas_reply.dump(2) + "\n```"},
                        {"finish_reason", "stop"}}
             .dump() +
         "\n";
  out += nlohmann::json{{"step", "implement"},
                        {"key", "r1-i0-b0"},
                        {"request", {{"idea", idea}, {"seed", "baseline"}, {"branch", 0}}},
                        {"reply", "```cuda\n" + candidate + "```"},
                        {"finish_reason", "stop"}}
             .dump() +
         "\n";
  return out;
}

// A git repository of examples/ searching saxpy with `candidate`'s replay; returns its path.
fs::path prepared_repo(const std::string& name, const std::string& candidate) {
  const fs::path dir = fs::temp_directory_path() / ("kb_arch_run_gpu_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  kb::testing::copy_examples_into(fs::path(KB_SOURCE_DIR) / "examples", dir);
  std::string toml = read_text(dir / "kernelbot.toml");
  for (const char* table : {"project", "search", "verify", "bench"}) toml = kb::testing::without_table(toml, table);
  write_text(dir / "kernelbot.toml",
             "[project]\ninclude_dirs = [\"include\"]\ntarget_archs = [\"sm_80\", \"sm_90\"]\n\n"
             "[search]\nproposer = \"replay\"\nreplay_file = \"replays/\"\nrounds = 1\nideas_per_round = 1\n"
             "branches_per_idea = 1\nseeds_kept = 1\nmax_candidates = 2\nmax_wall_time_s = 300\n\n"
             "[verify]\ntrials = 3\n\n[bench]\nmax_samples = 400\n\n" +
                 toml);
  fs::create_directories(dir / "replays");
  write_text(dir / "replays" / "saxpy.jsonl",
             replay_of(read_text(kb::testing::hand_written_candidate(KB_SOURCE_DIR, candidate))));
  kb::testing::init_repo_with_commit(dir);
  return dir;
}

// The run's row for saxpy, as `--json run` prints it.
nlohmann::json saxpy_row(const kb::testing::KernelbotRun& r) {
  const nlohmann::json parsed = nlohmann::json::parse(r.out, nullptr, false);  // {"ok", ..., "kernels": [rows]}
  nlohmann::json rows = parsed.is_object() ? parsed.value("kernels", nlohmann::json()) : nlohmann::json();
  if (rows.is_array())
    for (const auto& row : rows)
      if (row.value("kernel", "") == "saxpy") return row;
  return nlohmann::json::object();
}

TEST(ArchRunGpu, AWinnerWrongForSm80GetsNoPrAndTheVetoNamesSm80) {
  const fs::path repo = prepared_repo("off-by-one", "saxpy_arch_branch_off_by_one.cu");
  const kb::testing::KernelbotRun r = kb::testing::run_kernelbot("--json run --dry-run --kernel saxpy", repo);
  const std::string log = "\n--- stdout:\n" + r.out + "\n--- stderr:\n" + r.err;
  EXPECT_EQ(r.exit_code, 0) << "a vetoed PR is a result, not a failure" << log;
  const nlohmann::json row = saxpy_row(r);
  EXPECT_EQ(row.value("result", ""), "PR vetoed") << log;
  const std::string note = row.value("note", "");
  EXPECT_NE(note.find("the PR's file failed re-verification: wrong_result: for sm_80, which the project builds for"),
            std::string::npos)
      << log;
  EXPECT_FALSE(fs::exists(repo / ".kernelbot/prs/kernelbot-saxpy/PR.md")) << log;
}

TEST(ArchRunGpu, AnHonestWinnersPrListsEveryArchitecture) {
  const fs::path repo = prepared_repo("honest", "saxpy_arch_branches.cu");
  const kb::testing::KernelbotRun r = kb::testing::run_kernelbot("--json run --dry-run --kernel saxpy", repo);
  const std::string log = "\n--- stdout:\n" + r.out + "\n--- stderr:\n" + r.err;
  EXPECT_EQ(r.exit_code, 0) << log;
  EXPECT_EQ(saxpy_row(r).value("result", ""), "dry-run PR") << log;
  const fs::path pr = repo / ".kernelbot/prs/kernelbot-saxpy/PR.md";
  ASSERT_TRUE(fs::exists(pr)) << log;
  const std::string md = read_text(pr);
  EXPECT_NE(md.find("- Every GPU architecture the project builds for (from kernelbot.toml [project] target_archs):"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("  - `sm_80`: verified (compute_80 PTX only, run on this GPU (9.0) through the driver's JIT "
                    "compiler)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("  - `sm_90`: verified (the judge's own build (-arch=sm_90), verified and timed above)"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace kb::arch_run_gpu
