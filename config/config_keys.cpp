#include "config/config_keys.h"

namespace kb::config {
namespace {

template <auto Section, auto Member>
FieldRef field_of(Config& c) {
  return &(c.*Section.*Member);
}

// KEY(llm, provider): the section and key names and the accessor of Config::llm.provider, spelled
// once, so a key's name cannot drift from the field it fills.
#define KEY(section, name) #section, #name, &field_of < &Config::section, &decltype(Config::section)::name>
}  // namespace

const std::vector<ConfigKey>& config_keys() {
  using enum Bound;
  // Entries are in file order: the loader reads (and reports wrong types) in this order.
  static const std::vector<ConfigKey> keys = {
      {KEY(llm, provider), "openai-compatible, or none (the built-in tuner)", any, {"openai-compatible", "none"}},
      {KEY(llm, base_url), "the API root; /chat/completions is appended (before a ?query)"},
      {KEY(llm, model), "required with openai-compatible"},
      {KEY(llm, api_key_env), "the environment variable holding the key (never the key itself)"},
      {KEY(llm, api_key_header), "Authorization sends \"Bearer KEY\"; another name (api-key) the bare key"},
      {KEY(llm, temperature), "sampling temperature"},
      {KEY(llm, send_temperature), "auto (not to reasoning models) | true | false", any, {"auto", "true", "false"}},
      {KEY(llm, max_tokens_per_reply), "reply length limit, reasoning included", positive},
      {KEY(llm, token_parameter),
       "auto | max_tokens | max_completion_tokens",
       any,
       {"auto", "max_tokens", "max_completion_tokens"}},
      {KEY(llm, timeout_s), "per request, in seconds; when streaming, the longest silence", positive},
      {KEY(llm, stream), "read replies as server-sent events"},
      {KEY(llm, concurrency), "requests in flight at once", positive},
      {KEY(llm, context_tokens), "the model's context window in tokens (0 = unknown)", zero_or_more},
      {KEY(llm, max_retries), "on 429/5xx/timeouts, with backoff", zero_or_more},
      {KEY(llm, repair_attempts), "compile errors fed back for a repair", zero_or_more},
      {KEY(llm, usd_per_million_prompt_tokens), "price, for the money budget"},
      {KEY(llm, usd_per_million_completion_tokens), "price, for the money budget"},
      {KEY(llm, extra_body), "merged into every request (reasoning_effort, top_p, ...)"},
      {KEY(llm, extra_headers), "sent with every request"},

      {KEY(search, proposer),
       "auto (llm if configured, else builtin) | llm | builtin | replay",
       any,
       {"auto", "llm", "builtin", "replay"}},
      {KEY(search, replay_file), "recorded LLM replies; required with proposer = replay"},
      {KEY(search, rounds), "search rounds", positive},
      {KEY(search, ideas_per_round), "natural-language ideas written per round", positive},
      {KEY(search, branches_per_idea), "code variants per idea", positive},
      {KEY(search, seeds_kept), "best verified candidates carried into the next round", positive},
      {KEY(search, max_seeds_per_family), "diversity: one idea family cannot take every seed slot", positive},
      // Budgets: 0 is "no limit" where a search stays bounded without it (tokens, money), and
      // an error where it would mean no search at all (candidates, wall time).
      {KEY(search, max_candidates),
       "budget: candidates compiled (0 is an error: there is no unlimited candidate budget)",
       positive,
       {},
       "0 candidates would search nothing, and 0 does not mean unlimited here: write the most candidates to try"},
      {KEY(search, max_wall_time_s),
       "budget: wall time in seconds, the winner's counters included (0 is an error)",
       positive,
       {},
       "0 s would leave no time for any candidate, and 0 does not mean unlimited here: write the longest the search "
       "may take"},
      {KEY(search, max_tokens), "budget: LLM tokens (0 = no limit)", zero_or_more},
      {KEY(search, max_cost_usd), "budget: money (0 = no limit)", zero_or_more},
      {KEY(search, min_round_gain), "a round that improves the best by less is a round without gain"},
      {KEY(search, patience), "rounds without gain in a row that end the search (0 = never); lost rounds do not count",
       zero_or_more},
      {KEY(search, compile_jobs), "parallel compiles (0 = all cores)", zero_or_more},
      {KEY(search, screening), "screen candidates cheaply (while it saves time); fully evaluate only the contenders"},
      {KEY(search, screen_max_samples), "screening: timing samples at the main size", positive},
      {KEY(search, screen_min_time_s), "screening: GPU time the short timing aims for", zero_or_more},
      {KEY(search, max_error), "the median's error target of the search's full evaluations", zero_or_more},
      {KEY(search, screen_margin), "screening: least factor below a confirmed speedup that drops a candidate (>= 1.0)"},
      {KEY(search, archive), "every verified candidate, reused by later runs"},
      {KEY(search, work_dir), "generated harnesses, builds, compile cache"},

      {KEY(verify, trials), "fresh random inputs each, at every size set", positive},
      {KEY(verify, distributions), "input distributions cycled over the trials", any, distribution_names()},
      {KEY(verify, tolerance), "per dtype: passes when |c - r| <= atol + rtol*|r|"},
      {KEY(verify, seed), "0 = a fresh seed per run"},
      {KEY(verify, sanitize),
       "run compute-sanitizer (memcheck with leak check, racecheck, synccheck, initcheck; smallest and largest size "
       "set) on every candidate's full evaluation"},
      {KEY(verify, sanitize_winner), "run the same compute-sanitizer tools on the winner's PR text before any PR"},
      {KEY(verify, sanitizer_jobs),
       "how many compute-sanitizer tools run at once (each its own process, GPU context and buffers)", positive},
      {KEY(verify, strict_speedup), "a claimed speedup above this triggers an extra-strict pass", positive},
      {KEY(verify, timeout_s), "wall-time limit of one candidate's child process", positive},
      {KEY(verify, max_host_memory_mb), "host memory limit of that process", positive},
      {KEY(verify, sandbox),
       "where candidates compile and run: namespaces (bubblewrap) or process",
       any,
       {"namespaces", "process"}},
      {KEY(verify, source_policy), "refuse candidates that add host file, environment, process or network access"},
      {KEY(verify, compile_timeout_s), "wall-time limit of one candidate's compile", positive},
      {KEY(verify, compile_memory_gib), "host memory limit of one candidate's compile (its processes' RSS)", positive},
      {KEY(verify, persistent_judge),
       "one judge and original's process per search and GPU; a fresh process per candidate"},

      {KEY(bench, warmup_runs), "untimed launches first", zero_or_more},
      {KEY(bench, min_time_s), "minimum GPU time per measurement", zero_or_more},
      {KEY(bench, min_samples), "samples per measurement, at least", positive},
      {KEY(bench, max_samples), "samples per measurement, at most (>= min_samples)"},
      {KEY(bench, max_noise), "stop once the relative noise is under this", positive},
      {KEY(bench, max_error), "stop once the median's relative standard error is under this (0: off)", zero_or_more},
      {KEY(bench, timeout_s), "per measurement", positive},
      {KEY(bench, flush_l2), "cold samples: the L2 is flushed before each"},
      {KEY(bench, graph_below_us), "shorter kernels are timed as CUDA graphs of launches", zero_or_more},
      {KEY(bench, max_clock_sag), "samples taken with the SM clock this far under max are dropped", positive},
      {KEY(bench, min_speedup), "a PR needs at least this ratio of medians, beyond noise (>= 1.0)"},

      {KEY(github, repository), "owner/name; empty: dry-run PRs under .kernelbot/prs/"},
      {KEY(github, api_url), "for GitHub Enterprise Server"},
      {KEY(github, base_branch), "the branch PRs target"},
      {KEY(github, remote), "the remote pushed to"},
      {KEY(github, token_env), "the environment variable holding the token"},
      {KEY(github, labels), "put on every PR"},
      {KEY(github, max_open_prs), "the bot never has more open PRs than this", positive},
      {KEY(github, draft), "open PRs as drafts"},
      {KEY(github, author_name), "commit identity"},
      {KEY(github, author_email), "commit identity"},
      {KEY(github, reopen_margin), "after a PR closed unmerged, a new one needs this times its speedup", positive},
      {KEY(github, ignore_kernels), "kernels neither searched nor proposed"},

      {KEY(project, include_dirs), "for every kernel; [[kernel]] adds its own"},
      {KEY(project, defines), "for every kernel; [[kernel]] adds its own"},
      {KEY(project, nvcc_flags), "for every kernel; [[kernel]] adds its own"},
      {KEY(project, extra_sources), "for every kernel; [[kernel]] adds its own"},
      {KEY(project, link_libs), "for every kernel; [[kernel]] adds its own"},
      {KEY(project, prelude), "headers force-included before every compile (paths from the repository root)"},
      {KEY(project, setup_source), "a source defining extern \"C\" int kb_setup(void), run once per loaded library"},
      {KEY(project, compile_commands), "a compile_commands.json, auto (look in build*/) or none"},
      {KEY(project, cuda_arch), "e.g. \"90a\"; empty = the GPU's own"},
      {KEY(project, target_archs),
       "architectures the project builds for, e.g. [\"sm_80\", \"sm_90\"]; empty = read from its build files"},
      {KEY(project, build), "run on the changed tree before a PR is opened"},
      {KEY(project, test), "run on the changed tree before a PR is opened"},
      {KEY(project, discover_exclude), "directories `discover` skips"},
      {KEY(project, sources_outside_root), "allow sources that resolve outside the repository (.., symlinks)"},
  };
  return keys;
}
#undef KEY

const std::vector<std::string>& config_sections() {
  static const std::vector<std::string> sections = [] {
    std::vector<std::string> out;
    for (const auto& key : config_keys())
      if (out.empty() || out.back() != key.section) out.push_back(key.section);
    return out;
  }();
  return sections;
}

}  // namespace kb::config
