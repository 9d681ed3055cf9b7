// The effective kernelbot configuration: one struct per TOML section, every field with its default.
// Parsing and validation live in config_loader.cpp. Each field of a fixed section also has one
// line in config_keys.cpp's key table (and a row in docs/configuration.md): config_keys_test fails until it does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/size_rule.h"
#include "core/arg_type_names.h"
#include "core/arg_types.h"
#include "core/measurement_defaults.h"

namespace kb::config {

// A position in a config file, kept so later stages (a missing source file, an unknown size name)
// can still point the user at the line that caused it.
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool operator==(const Tolerance&) const = default;
};

// A TOML table kept as the text of the JSON object it stands for ({"reasoning_effort": "high"}),
// so that this header needs neither a TOML nor a JSON library.
struct JsonTable {
  std::string json = "{}";
  bool operator==(const JsonTable&) const = default;
};

// [llm]: the OpenAI-compatible chat endpoint the `llm` proposer talks to.
struct LlmConfig {
  std::string provider = "none";                       // "openai-compatible" or "none"
  std::string base_url = "https://api.openai.com/v1";  // may end in a query: ...?api-version=2024-10-21
  std::string model;
  std::string api_key_env = "OPENAI_API_KEY";
  // "Authorization" sends "Bearer KEY"; any other header (Azure's "api-key") sends the bare key.
  std::string api_key_header = "Authorization";
  double temperature = 0.7;
  std::string send_temperature = "auto";  // auto (not to reasoning models) | true | false
  int64_t max_tokens_per_reply = 32768;   // reasoning models spend much of it thinking
  // auto: max_completion_tokens for OpenAI's reasoning models and api.openai.com, else max_tokens.
  std::string token_parameter = "auto";
  double timeout_s = 180;   // the whole reply; when streaming, the longest silence
  bool stream = true;       // server-sent events
  int64_t concurrency = 8;  // requests in flight at once
  // The model's context window in tokens; 0: unknown until a server names it in a refusal. When
  // known, prompts are trimmed to half of it and the reply limit to what the prompt leaves.
  int64_t context_tokens = 0;
  int64_t max_retries = 5;
  int64_t repair_attempts = 1;  // compile errors fed back for one repair by default
  double usd_per_million_prompt_tokens = 0;
  double usd_per_million_completion_tokens = 0;
  JsonTable extra_body;  // merged into every request's JSON: reasoning_effort, top_p, chat_template_kwargs...
  std::map<std::string, std::string> extra_headers;  // sent with every request
};

// [search]: the reasoning-branching search and its budgets.
struct SearchConfig {
  std::string proposer = "auto";  // auto | llm | builtin | replay
  std::string replay_file;        // recorded LLM replies, for proposer = "replay"
  int64_t rounds = 5;
  int64_t ideas_per_round = 4;
  int64_t branches_per_idea = 3;
  int64_t seeds_kept = 3;
  int64_t max_seeds_per_family = 2;  // diversity: one idea family cannot take every seed slot
  int64_t max_candidates = 200;
  double max_wall_time_s = 3600;
  int64_t max_tokens = 2'000'000;
  double max_cost_usd = 0;       // 0 = no money budget
  double min_round_gain = 0.01;  // a round that improves the best by less than this is a round without gain
  // Rounds without gain in a row that end the search early (0: never). A round lost to protocol
  // or infrastructure errors is not one: it measured nothing (search/engine/round_patience.h).
  int64_t patience = 2;
  int64_t compile_jobs = 0;  // 0 = all cores
  // Screening, then confirmation (search/engine/screening.h): a short measurement of every candidate,
  // the full one only for those not clearly slower than the best confirmed. The full
  // measurement ([verify], [bench]) is unchanged; a candidate is never accepted on a screening.
  bool screening = true;
  int64_t screen_max_samples = 30;  // timing samples of each variant at the main size
  double screen_min_time_s = 0.05;  // GPU time the screening's timing aims for
  double screen_margin = 1.04;      // least factor "clearly slower" needs, whatever the noise
  // The median's error target of the search's full evaluations (Config::search_max_error: the larger of
  // this and [bench].max_error; 0 there turns it off for both). The winner's PR is re-verified at
  // [bench].max_error, so the PR's numbers keep the tighter target.
  double max_error = 0.003;
  std::string archive = ".kernelbot/archive.sqlite";
  std::string work_dir = ".kernelbot/work";
};

// [verify]: how a candidate is proven equal to the original.
struct VerifyConfig {
  int64_t trials = kDefaultTrials;
  // Cycled over the trials, each size set starting one further (see distribution_names()).
  std::vector<std::string> distributions = default_distributions();
  std::map<std::string, Tolerance> tolerance = {
      {"float64", {1e-10, 1e-12}}, {"float32", {1e-4, 1e-5}}, {"float16", {1e-2, 1e-3}},
      {"bfloat16", {2e-2, 1e-2}},  {"int32", {0, 0}},         {"int64", {0, 0}},
      {"uint32", {0, 0}},          {"int8", {0, 0}},          {"uint8", {0, 0}}};
  int64_t seed = 0;       // 0 = a fresh seed per run
  bool sanitize = false;  // compute-sanitizer (the same four tools) on every candidate's full evaluation
  // compute-sanitizer (memcheck with leak check, racecheck, synccheck, initcheck) on the winner's
  // PR text when it is re-verified, before any PR: a finding is no PR. Cheap next to a search (one
  // call at the smallest and one at the largest size set per tool).
  bool sanitize_winner = true;
  // How many of those tools run at once (each a process with its own GPU context and the job's
  // buffers): 4, all of them, by default; 1 for a GPU or host with little memory to spare.
  int64_t sanitizer_jobs = 4;
  double strict_speedup = 10.0;  // a claimed speedup above this triggers an extra-strict pass
  double timeout_s = 120;        // wall-time limit for one candidate's child process
  int64_t max_host_memory_mb = 16384;
  // Where candidates (their compiles and the harness that runs them) run: "namespaces"
  // (bubblewrap: no network, no repository .git/.kernelbot, no secrets) or "process" (a scrubbed
  // child process only; chosen explicitly where bubblewrap cannot run, and said in the PR).
  std::string sandbox = "namespaces";
  // Refuse, before nvcc runs, a candidate whose source adds host code a kernel replacement does
  // not need (file, environment, process, network access...: cuda_source/policy/candidate_policy.h).
  bool source_policy = true;
  // One candidate's compile: wall-clock and memory (its process tree's RSS) limits. Running out
  // of either is the candidate's compile_error.
  double compile_timeout_s = 120;
  double compile_memory_gib = 8;
  // One judge per search and GPU (kernelbot-harness --session): the judge's CUDA context and the
  // original's server are kept from job to job, each candidate still runs in a fresh process of
  // its own. false: a sandbox, a judge and both servers started for every job.
  bool persistent_judge = true;
};

// [bench]: timing, in the manner of nvbench. The defaults are the judge's (core/measurement_defaults.h),
// spelled there once; the comments there say what each does.
struct BenchConfig {
  int64_t warmup_runs = kDefaultBench.warmup_runs;
  double min_time_s = kDefaultBench.min_time_s;
  int64_t min_samples = kDefaultBench.min_samples;
  int64_t max_samples = kDefaultBench.max_samples;
  double max_noise = kDefaultBench.max_noise;
  double max_error = kDefaultBench.max_error;
  double timeout_s = kDefaultBench.timeout_s;
  bool flush_l2 = kDefaultBench.flush_l2;
  double graph_below_us = kDefaultBench.graph_below_us;
  double max_clock_sag = kDefaultBench.max_clock_sag;
  double min_speedup = kDefaultMinSpeedup;  // a win must beat this ratio of medians, noise included
  // The judge's part of these settings, for a HarnessJob.
  HarnessBench harness() const;
};

// [github]: where the pull requests go; an empty repository means the dry-run forge.
struct GithubConfig {
  std::string repository;  // "owner/name"
  std::string api_url = "https://api.github.com";
  std::string base_branch = "main";
  std::string remote = "origin";
  std::string token_env = "GITHUB_TOKEN";
  std::vector<std::string> labels = {"kernelbot", "performance"};
  int64_t max_open_prs = 5;
  bool draft = false;
  std::string author_name = "kernelbot";
  std::string author_email = "kernelbot@users.noreply.github.com";
  // A kernel whose PR was closed without merging gets a new PR only for a winner at least this
  // many times as fast as the closed one's (bot/pr/pr_lifecycle.h); the same change never again.
  double reopen_margin = 1.10;
  // Kernels the bot neither searches nor proposes (as a `kernelbot: ignore` label on a PR does).
  std::vector<std::string> ignore_kernels;
};

// [project]: how the repository builds its CUDA code; per-kernel fields add to these.
struct ProjectConfig {
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::vector<std::string> nvcc_flags;
  std::vector<std::string> extra_sources;
  std::vector<std::string> link_libs;
  // Headers force-included (nvcc -include, absolute) before every translation unit of originals
  // and candidates: the kernel's, extra_sources' and the setup source's (compat macros, typedefs
  // an old framework header provided). Paths relative to the repository root; each must exist.
  std::vector<std::string> prelude;
  // A source compiled into every variant library (the original's and each candidate's alike) that
  // defines extern "C" int kb_setup(void), run once when a variant server loads the library,
  // before any call: the globals, handles and workspaces a program's main() creates
  // (core/setup_contract.h). A [[kernel]]'s own setup_source replaces this one.
  std::string setup_source;
  std::string compile_commands = "auto";  // path, "auto" (look in build*/), or "none"
  std::string cuda_arch;                  // empty = the GPU's own
  // The GPU architectures the project builds for ("sm_80", "sm_90a", "86"), each verified or at
  // least compiled before a PR (profiler/evaluate/archs/target_archs.h). Empty: read from the project's
  // nvcc flags, compile_commands.json or CMake settings.
  std::vector<std::string> target_archs;
  std::string build;  // shell command run on the changed tree before a PR
  std::string test;
  std::vector<std::string> discover_exclude = {"build", ".git", ".kernelbot", "third_party"};
  // A source or extra source that resolves outside the repository (`..`, a symlink) is an error
  // unless this says it is meant (common/path_containment.h).
  bool sources_outside_root = false;
};

// One parameter of a kernel's launcher, in order (ArgRole and DType: core/arg_types.h).
struct ArgSpec {
  std::string name;
  ArgRole role = ArgRole::input;
  DType dtype = DType::float32;
  std::string count;         // element count expression over the size names (buffers)
  std::string value;         // value expression (size, scalar); empty scalar = random per trial
  std::string distribution;  // override of [verify].distributions for this input
  SourcePos pos;
  // How an output's allowed error scales: "" (= "plain": atol + rtol*|r|) or "abs_inputs"
  // (atol + rtol*max(|r|, |s|), s the original's output on the absolute values of its float inputs).
  std::string error_scale;
  // Integer inputs only: the values are drawn from lo <= v < hi (as Python's range), both
  // expressions over the size names, e.g. {"0", "vocab"} for token ids. Empty: the distributions.
  std::vector<std::string> range;
};

// A named set of sizes, e.g. { n = 1048576 }: every count/value expression is evaluated on it.
struct SizeSet {
  std::map<std::string, int64_t> values;
  std::string label() const;
};

// A field written as "TODO" (what `kernelbot init` writes where it could not guess): the config
// loads, `config check` lists it, and every command that would run the kernel refuses it.
inline constexpr const char* todo_marker = "TODO";
struct UnfinishedField {
  std::string field;  // "kernel[0].arg[2].count"
  SourcePos pos;
};

// [[kernel]]: one target: a launcher function and the kernels it launches, or (`global`) one
// __global__ function that the harness launches itself (config/kernel_target.h says how).
struct KernelSpec {
  std::string name;
  std::string source;
  std::string launcher;
  // A kernel target: the __global__ function, and its launch as C++ expressions over the kernel's
  // parameters by name (grid and block: 1-3 comma-separated components; the grid and the shared
  // bytes may also name block_x, block_y, block_z). Empty `global`: a launcher target.
  std::string global;
  std::string grid;
  std::string block;
  std::string shared_bytes;   // empty = 0
  std::string template_args;  // "float, 4" for a template kernel; empty = none
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::vector<std::string> nvcc_flags;
  std::vector<std::string> extra_sources;
  std::vector<std::string> link_libs;
  std::string setup_source;  // replaces [project].setup_source for this kernel (one kb_setup per library)
  std::vector<ArgSpec> args;
  std::vector<SizeSet> sizes;
  std::map<std::string, SizeRule> size_rules;  // size name -> the values the code supports
  std::map<std::string, Tolerance> tolerance;  // overrides of [verify].tolerance by dtype
  std::string flops;                           // optional FLOP count expression
  std::string bytes;  // optional bytes-moved override (default: inputs read once, outputs written once)
  std::map<std::string, std::vector<std::string>> tunables;  // macro -> values to try
  SourcePos pos;
  std::vector<UnfinishedField> unfinished;  // fields still "TODO", in file order

  bool is_global() const { return !global.empty(); }
  // The function the target names: the launcher, or the __global__ function.
  const std::string& entry() const { return is_global() ? global : launcher; }
  // Where each key of the table and of its [[kernel.arg]]s is written ("kernel[0].arg[2].count"),
  // so that an error about a field points at its own line rather than at the table's header.
  std::map<std::string, SourcePos> field_pos;
  // The position of `field`, else of the nearest enclosing field written ("kernel[0].sizes" for
  // "kernel[0].sizes[1]"), else `fallback`.
  SourcePos position_of(std::string field, const SourcePos& fallback) const;
};

struct Config {
  std::filesystem::path file;  // the file it came from (empty: defaults only)
  std::filesystem::path root;  // the repository root: the config file's directory
  LlmConfig llm;
  SearchConfig search;
  VerifyConfig verify;
  BenchConfig bench;
  GithubConfig github;
  ProjectConfig project;
  std::vector<KernelSpec> kernels;
  // Findings that leave the file usable but are probably mistakes (an ignore_kernels entry that
  // names no kernel): printed as warnings by the commands that validate the config.
  std::vector<ConfigDiagnostic> warnings;

  const KernelSpec* find_kernel(const std::string& name) const;
  // The tolerance for one dtype of one kernel: the kernel's override, else [verify].
  Tolerance tolerance_for(const KernelSpec& kernel, DType dtype) const;
  // Paths in the config are relative to the repository root.
  std::filesystem::path resolve(const std::string& path) const;
  // The setup source a kernel's library is built with: its own, else [project]'s; "" for none.
  const std::string& setup_source_for(const KernelSpec& kernel) const;
  // The median's error target of the search's full evaluations: the larger of [search].max_error
  // and [bench].max_error, 0 when [bench] turned it off.
  double search_max_error() const;
};

// The input distributions the harness generates (profiler/judge/inputs/input_distribution.h), and the
// values [[kernel.arg]] error_scale takes.
const std::vector<const char*>& distribution_names();
const std::vector<const char*>& error_scale_names();

}  // namespace kb::config
