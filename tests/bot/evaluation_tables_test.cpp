// The terminal output of `kernelbot eval` / `kernelbot profile` from result types.
#include "bot/commands/evaluation_tables.h"

#include <gtest/gtest.h>

namespace kb::bot {
namespace {

EvalResult accepted() {
  EvalResult r;
  r.verdict = Verdict::accepted;
  r.reason = "correct and faster: geometric-mean speedup 1.800x, significant at 2 of 2 sizes";
  r.speedup = 1.8;
  r.device.name = "NVIDIA H100 80GB HBM3";
  r.verification.passed = true;
  r.verification.trials = 3;
  r.verification.sizes = {"n=1048576", "n=16777216"};
  r.verification.distributions = {"uniform", "normal"};
  r.verification.seeds = {77};
  r.verification.outputs = {{"y", "float32", 2.4e-7, 1.1e-7, 1e-4, 1e-5, 0, 3000000}};
  SizeTiming t;
  t.size_label = "n=16777216";
  t.baseline.median_us = 250.5;
  t.candidate.median_us = 139.2;
  t.baseline.noise = 0.004;
  t.candidate.noise = 0.003;
  t.speedup = 1.8;
  t.significant = true;
  t.baseline_pct_of_floor = 34.5;
  t.candidate_pct_of_floor = 62.1;
  r.timings = {t};
  return r;
}

TEST(EvaluationTables, EvalResultShowsVerdictTimingsAndErrors) {
  std::string text = render_eval_result(accepted(), "saxpy", "fast.cu");
  EXPECT_NE(text.find("kernel saxpy: candidate fast.cu on NVIDIA H100 80GB HBM3"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: accepted"), std::string::npos);
  EXPECT_NE(text.find("speedup: 1.800x"), std::string::npos);
  EXPECT_NE(text.find("verification: passed, 3 trials over 2 sizes (uniform, normal), seed 77"), std::string::npos);
  EXPECT_NE(text.find("n=16777216"), std::string::npos);
  EXPECT_NE(text.find("250.50"), std::string::npos);
  EXPECT_NE(text.find("139.20"), std::string::npos);
  EXPECT_NE(text.find("0.40% / 0.30%"), std::string::npos);
  EXPECT_NE(text.find("34.5% / 62.1%"), std::string::npos);
  EXPECT_NE(text.find("2.4e-07"), std::string::npos) << "worst errors table";
  EXPECT_EQ(text.find("compiler output"), std::string::npos);
}

TEST(EvaluationTables, SanitizerRunsSayWhichToolsRanAtWhichSizes) {
  EvalResult r = accepted();
  r.verification.sanitized = true;
  r.verification.sanitizer_tools = {"memcheck (with leak check)", "racecheck", "synccheck", "initcheck"};
  r.verification.sanitizer_sizes = {"n=1000003", "n=16777216"};
  std::string text = render_eval_result(r, "saxpy", "fast.cu");
  EXPECT_NE(text.find("seed 77; compute-sanitizer clean\n"), std::string::npos) << text;
  EXPECT_NE(text.find("compute-sanitizer ran: memcheck (with leak check), racecheck, synccheck and initcheck, one "
                      "call each at the smallest and the largest size set (n=1000003, n=16777216)\n"),
            std::string::npos)
      << text;

  r.verdict = Verdict::rejected;
  r.reason = "compute-sanitizer initcheck found 1024 errors";
  r.verification.sanitizer_report = "========= Uninitialized __global__ memory read of size 4 bytes\n";
  text = render_eval_result(r, "saxpy", "scratch.cu");
  EXPECT_NE(text.find("; compute-sanitizer report below"), std::string::npos) << text;
  EXPECT_NE(text.find("compute-sanitizer report:\n========= Uninitialized"), std::string::npos) << text;
}

TEST(EvaluationTables, EvalResultListsTheTargetArchitectures) {
  EvalResult r = accepted();
  r.verification.archs_source = "kernelbot.toml [project] target_archs";
  r.verification.archs = {{"sm_80", ArchOutcome::verified, "compute_80 PTX only, run on this GPU (9.0)", "3 trials"},
                          {"sm_100", ArchOutcome::compiled, "sm_100 SASS", "newer than this GPU"},
                          {"sm_70", ArchOutcome::skipped, "compute_70 PTX only", "the original does not compile"}};
  std::string text = render_eval_result(r, "saxpy", "fast.cu");
  EXPECT_NE(text.find("target architectures: kernelbot.toml [project] target_archs\n"
                      "  sm_80: verified (compute_80 PTX only, run on this GPU (9.0)): 3 trials\n"
                      "  sm_100: compiled, not run (sm_100 SASS): newer than this GPU\n"
                      "  sm_70: skipped: the original does not compile\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(render_eval_result(accepted(), "saxpy", "fast.cu").find("target architectures"), std::string::npos);
}

TEST(EvaluationTables, CompileErrorShowsTheLog) {
  EvalResult r;
  r.verdict = Verdict::compile_error;
  r.reason = "the candidate did not compile";
  r.compile_log = "variant.cu(3): error: identifier \"oops\" is undefined\n";
  std::string text = render_eval_result(r, "saxpy", "bad.cu");
  EXPECT_NE(text.find("verdict: compile_error"), std::string::npos);
  EXPECT_NE(text.find("identifier \"oops\" is undefined"), std::string::npos);
}

TEST(EvaluationTables, ProfileRowsPerSizeWithMetricsOnTheirSize) {
  EvalResult r = accepted();
  r.verdict = Verdict::pending;
  r.device.copy_bandwidth_gbps = 3012;
  r.device.fp32_tflops = 51.3;
  r.timings[0].baseline.samples = 120;
  r.baseline_metrics.status = "ok";
  r.baseline_metrics.size_label = "n=16777216";
  r.baseline_metrics.values = {{"sm_throughput_pct", 12.25},
                               {"dram_throughput_pct", 88.0},
                               {"achieved_occupancy_pct", 49.5}};
  r.baseline_metrics.registers_per_thread = 16;
  EvalResult failed;
  failed.verdict = Verdict::compile_error;
  failed.reason = "the kernel's source did not compile";
  std::string text = render_kernel_profiles({{"saxpy", r}, {"broken", failed}});
  EXPECT_NE(text.find("on NVIDIA H100 80GB HBM3 (measured copy bandwidth 3012 GB/s, FP32 51.3 TFLOP/s)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("88.0"), std::string::npos);
  EXPECT_NE(text.find("49.5"), std::string::npos);
  EXPECT_NE(text.find("120"), std::string::npos);
  EXPECT_NE(text.find("broken: compile_error: the kernel's source did not compile"), std::string::npos);
}

// Issue #10, item 5: over 100% of the roofline floor is reported with what the floor rests on.
TEST(EvaluationTables, ATimingAboveTheRooflineFloorIsNotedAsAdvice) {
  EvalResult r = accepted();
  EXPECT_EQ(render_eval_result(r, "gather", "fast.cu").find("above 100% of the roofline floor"), std::string::npos);
  r.timings[0].floor_us = 400;
  r.timings[0].baseline_pct_of_floor = 160;
  r.timings[0].candidate_pct_of_floor = 287;
  std::string text = render_eval_result(r, "gather", "fast.cu");
  EXPECT_NE(text.find("160.0% / 287.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("above 100% of the roofline floor: the floor is the spec's estimated bytes"), std::string::npos)
      << text;
  EXPECT_NE(text.find("it decides no verdict"), std::string::npos) << text;
  r.verdict = Verdict::pending;
  text = render_kernel_profiles({{"gather", r}});
  EXPECT_NE(text.find("above 100% of the roofline floor"), std::string::npos) << text;
}

TEST(EvaluationTables, WorkloadRanking) {
  profiler::WorkloadRanking w;
  profiler::RankedKernel k;
  k.rank = 1;
  k.name = "row_sum_kernel";
  k.calls = 21;
  k.total_ms = 30.8;
  k.mean_us = 1466.7;
  k.share = 0.676;
  k.grid = "32768x1x1";
  k.block = "256x1x1";
  k.sources = {"src/reduction.cu:12"};
  k.launchers = {"launch_row_sum"};
  k.configured = {"row_sum"};
  w.kernels = {k};
  w.total_calls = 21;
  w.total_kernel_ms = 30.8;
  w.processes = 1;
  std::string text = render_workload_ranking(w, "./demo_app", 1.5);
  EXPECT_NE(text.find("1 kernels, 21 launches, 30.800 ms of kernel time in 1.50 s (1 CUDA process)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("67.60%"), std::string::npos);
  EXPECT_NE(text.find("src/reduction.cu:12"), std::string::npos);
  EXPECT_NE(text.find("launch_row_sum [kernel row_sum]"), std::string::npos);
  auto j = workload_ranking_json(w, "./demo_app", 1.5, 0);
  EXPECT_EQ(j["kernels"][0]["configured_kernels"][0], "row_sum");
  EXPECT_EQ(j["exit_code"], 0);
}

}  // namespace
}  // namespace kb::bot
