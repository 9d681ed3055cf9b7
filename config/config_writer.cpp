#include "config/config_writer.h"

#include <toml++/toml.h>

#include <sstream>

namespace kb::config {
namespace {

toml::array strings(const std::vector<std::string>& values) {
  toml::array a;
  for (const auto& v : values) a.push_back(v);
  return a;
}

toml::table tolerances(const std::map<std::string, Tolerance>& values) {
  toml::table t;
  for (const auto& [dtype, tol] : values) t.insert(dtype, toml::table{{"rtol", tol.rtol}, {"atol", tol.atol}});
  return t;
}

toml::table kernel_table(const KernelSpec& k) {
  toml::table t{{"name", k.name}, {"source", k.source}, {"launcher", k.launcher}};
  t.insert("include_dirs", strings(k.include_dirs));
  t.insert("defines", strings(k.defines));
  t.insert("nvcc_flags", strings(k.nvcc_flags));
  t.insert("extra_sources", strings(k.extra_sources));
  t.insert("link_libs", strings(k.link_libs));
  if (!k.flops.empty()) t.insert("flops", k.flops);
  if (!k.bytes.empty()) t.insert("bytes", k.bytes);
  if (!k.tolerance.empty()) t.insert("tolerance", tolerances(k.tolerance));
  toml::array sizes;
  for (const auto& s : k.sizes) {
    toml::table st;
    for (const auto& [name, value] : s.values) st.insert(name, value);
    sizes.push_back(std::move(st));
  }
  t.insert("sizes", std::move(sizes));
  if (!k.tunables.empty()) {
    toml::table tun;
    for (const auto& [macro, values] : k.tunables) tun.insert(macro, strings(values));
    t.insert("tunables", std::move(tun));
  }
  toml::array args;
  for (const auto& a : k.args) {
    toml::table at{{"name", a.name}, {"role", to_string(a.role)}, {"dtype", to_string(a.dtype)}};
    if (!a.count.empty()) at.insert("count", a.count);
    if (!a.value.empty()) at.insert("value", a.value);
    if (!a.distribution.empty()) at.insert("distribution", a.distribution);
    args.push_back(std::move(at));
  }
  t.insert("arg", std::move(args));
  return t;
}

toml::table document(const Config& c) {
  toml::table doc;
  doc.insert("llm", toml::table{{"provider", c.llm.provider},
                                {"base_url", c.llm.base_url},
                                {"model", c.llm.model},
                                {"api_key_env", c.llm.api_key_env},
                                {"temperature", c.llm.temperature},
                                {"max_tokens_per_reply", c.llm.max_tokens_per_reply},
                                {"timeout_s", c.llm.timeout_s},
                                {"max_retries", c.llm.max_retries},
                                {"repair_attempts", c.llm.repair_attempts},
                                {"usd_per_million_prompt_tokens", c.llm.usd_per_million_prompt_tokens},
                                {"usd_per_million_completion_tokens", c.llm.usd_per_million_completion_tokens}});
  doc.insert("search", toml::table{{"proposer", c.search.proposer},
                                   {"replay_file", c.search.replay_file},
                                   {"rounds", c.search.rounds},
                                   {"ideas_per_round", c.search.ideas_per_round},
                                   {"branches_per_idea", c.search.branches_per_idea},
                                   {"seeds_kept", c.search.seeds_kept},
                                   {"max_seeds_per_family", c.search.max_seeds_per_family},
                                   {"max_candidates", c.search.max_candidates},
                                   {"max_wall_time_s", c.search.max_wall_time_s},
                                   {"max_tokens", c.search.max_tokens},
                                   {"max_cost_usd", c.search.max_cost_usd},
                                   {"min_round_gain", c.search.min_round_gain},
                                   {"compile_jobs", c.search.compile_jobs},
                                   {"archive", c.search.archive},
                                   {"work_dir", c.search.work_dir}});
  toml::table verify{{"trials", c.verify.trials},
                     {"seed", c.verify.seed},
                     {"sanitize", c.verify.sanitize},
                     {"strict_speedup", c.verify.strict_speedup},
                     {"timeout_s", c.verify.timeout_s},
                     {"max_host_memory_mb", c.verify.max_host_memory_mb},
                     {"sandbox", c.verify.sandbox}};
  verify.insert("distributions", strings(c.verify.distributions));
  verify.insert("tolerance", tolerances(c.verify.tolerance));
  doc.insert("verify", std::move(verify));
  doc.insert("bench", toml::table{{"warmup_runs", c.bench.warmup_runs},
                                  {"min_time_s", c.bench.min_time_s},
                                  {"min_samples", c.bench.min_samples},
                                  {"max_samples", c.bench.max_samples},
                                  {"max_noise", c.bench.max_noise},
                                  {"timeout_s", c.bench.timeout_s},
                                  {"flush_l2", c.bench.flush_l2},
                                  {"graph_below_us", c.bench.graph_below_us},
                                  {"max_clock_sag", c.bench.max_clock_sag},
                                  {"min_speedup", c.bench.min_speedup}});
  toml::table github{{"repository", c.github.repository},
                     {"api_url", c.github.api_url},
                     {"base_branch", c.github.base_branch},
                     {"remote", c.github.remote},
                     {"token_env", c.github.token_env},
                     {"max_open_prs", c.github.max_open_prs},
                     {"draft", c.github.draft},
                     {"author_name", c.github.author_name},
                     {"author_email", c.github.author_email}};
  github.insert("labels", strings(c.github.labels));
  doc.insert("github", std::move(github));
  toml::table project{{"compile_commands", c.project.compile_commands},
                      {"cuda_arch", c.project.cuda_arch},
                      {"build", c.project.build},
                      {"test", c.project.test}};
  project.insert("include_dirs", strings(c.project.include_dirs));
  project.insert("defines", strings(c.project.defines));
  project.insert("nvcc_flags", strings(c.project.nvcc_flags));
  project.insert("extra_sources", strings(c.project.extra_sources));
  project.insert("link_libs", strings(c.project.link_libs));
  project.insert("discover_exclude", strings(c.project.discover_exclude));
  doc.insert("project", std::move(project));
  toml::array kernels;
  for (const auto& k : c.kernels) kernels.push_back(kernel_table(k));
  doc.insert("kernel", std::move(kernels));
  return doc;
}

}  // namespace

std::string to_toml_text(const Config& config) {
  std::ostringstream out;
  out << "# effective configuration";
  if (!config.file.empty()) out << " of " << config.file.string();
  out << " (defaults filled in)\n\n" << toml::toml_formatter(document(config), toml::toml_formatter::default_flags | toml::format_flags::relaxed_float_precision) << "\n";
  return out.str();
}

std::string to_json_text(const Config& config) {
  std::ostringstream out;
  out << toml::json_formatter(document(config), toml::json_formatter::default_flags | toml::format_flags::relaxed_float_precision) << "\n";
  return out.str();
}

}  // namespace kb::config
