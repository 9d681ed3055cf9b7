#include "search/llm/llm_prompts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <cstdint>

#include "common/text_cut.h"
#include "common/text_template.h"
#include "core/number_format.h"
#include "search/ideas/idea_family.h"
#include "search/llm/chat_completion.h"
#include "search/llm/exchange_keys.h"
#include "search/llm/prompt_files.h"

namespace kb::search {
namespace {

constexpr size_t kMaxLogChars = 6'000;
constexpr size_t kMaxDiffChars = 3'000;
// What the model reads about a failure: the latest round's in full, which holds the failing case
// (size, element, expected and got, tolerance); earlier rounds' as a line each.
constexpr size_t kMaxLatestReasonChars = 1'500;
constexpr size_t kMaxEarlierReasonChars = 300;

std::string shorten(const std::string& text, size_t max, bool keep_end = false) {
  return keep_end ? keep_tail(text, max) : keep_head(text, max);
}

// `code` shows a seed's source as the prompts show files (whole, or the launcher's excerpt); the
// seeds after the first `with_code` are shown without it (a prompt fitted to a small context).
template <class ShowCode>
std::string format_seeds(const std::vector<Seed>& seeds, const std::string& note, size_t with_code, ShowCode code) {
  std::string out;
  for (size_t i = 0; i < seeds.size(); ++i) {
    const Seed& s = seeds[i];
    out += fmt::format("### {} ({} vs the original)", s.id, format_speedup(s.speedup));
    const std::string timings = format_size_timings(s.eval.timings, s.id == "baseline");
    if (s.id == "baseline") {
      out += ": the original source above\n" + timings + "\n";
      continue;
    }
    out += fmt::format(", from the idea: {} [{}]\n{}Compiled with: {}\n", s.idea.text, s.idea.family, timings,
                       format_build(s.variant));
    out += i < with_code ? fmt::format("{}```cuda\n{}```\n\n", note, code(s.variant.source))
                         : "(its code is left out to fit the model's context)\n\n";
  }
  return out;
}

// A timing's median, or "?" for a size the evaluation did not reach.
std::string median_text(const TimingStats& t) { return t.median_us > 0 ? format_us(t.median_us) + " us" : "?"; }

std::string format_examples(const std::vector<ArchiveExample>& examples) {
  if (examples.empty()) return "(none yet)\n";
  std::string out;
  for (const auto& e : examples)
    out += fmt::format("- `{}` on {}: {} with the idea \"{}\" [{}]\n```diff\n{}```\n", e.kernel, e.gpu,
                       format_speedup(e.speedup), e.idea.text, e.idea.family, shorten(e.diff, kMaxDiffChars));
  return out;
}

// What a prompt leaves out, least first, to stay within half a known context (the other half is
// the reply's): the history of earlier candidates shortened, then the code of every seed but the
// best, then the archive's examples, then the history whole. The kernel's own code stays: a file
// too long for the context is shown as the launcher's excerpt instead (prompt_source.h).
const std::vector<PromptTrim>& trim_levels() {
  static const std::vector<PromptTrim> levels = {
      {40, SIZE_MAX, true}, {20, SIZE_MAX, true}, {10, SIZE_MAX, true}, {5, SIZE_MAX, true},
      {5, 1, true},         {5, 1, false},        {0, 1, false},
  };
  return levels;
}

std::string describe_trim(const PromptTrim& trim, const ProposalContext& ctx) {
  std::vector<std::string> parts;
  if (ctx.history.size() > trim.history)
    parts.push_back(fmt::format("the last {} of {} earlier candidates", trim.history, ctx.history.size()));
  if (ctx.seeds.size() > trim.seeds_with_code) parts.push_back("the code of the best seed only");
  if (!trim.examples && !ctx.examples.empty()) parts.push_back("no archive examples");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string format_gpu(const DeviceInfo& d) {
  std::string out = fmt::format("{} (compute capability {}.{}, {} SMs, {:.0f} MiB L2, {:.0f} GiB memory)", d.name,
                                d.cc_major, d.cc_minor, d.sm_count, static_cast<double>(d.l2_bytes) / (1 << 20),
                                static_cast<double>(d.memory_bytes) / (1 << 30));
  if (d.copy_bandwidth_gbps > 0) out += fmt::format("; measured copy bandwidth {:.0f} GB/s", d.copy_bandwidth_gbps);
  if (d.fp32_tflops > 0) out += fmt::format("; measured FP32 {:.1f} TFLOP/s", d.fp32_tflops);
  if (!d.runtime_version.empty()) out += "; CUDA " + d.runtime_version;
  return out;
}

std::string format_profile(const EvalResult& profile) {
  std::string out;
  for (const auto& t : profile.timings) {
    out += fmt::format("- {}: median {:.2f} us (noise {:.1f}%)", t.size_label, t.baseline.median_us,
                       t.baseline.noise * 100);
    if (t.floor_us > 0)
      out += fmt::format(", roofline floor {:.2f} us, so at {:.0f}% of the floor{}", t.floor_us,
                         t.baseline_pct_of_floor,
                         t.baseline_pct_of_floor > 100 ? " (above it: the floor's byte count is an estimate, and this "
                                                         "kernel moves fewer bytes than estimated)"
                                                       : "");
    if (t.bytes_moved > 0) out += fmt::format(", {:.1f} MB moved", t.bytes_moved / 1e6);
    if (t.flops > 0) out += fmt::format(", {:.1f} MFLOP", t.flops / 1e6);
    out += "\n";
  }
  if (out.empty()) out = "(no timings)\n";
  const auto& m = profile.baseline_metrics;
  out += fmt::format("Hardware metrics: {}\n", m.status);
  for (const auto& [name, value] : m.values) out += fmt::format("- {}: {:.4g}\n", name, value);
  if (m.registers_per_thread > 0)
    out += fmt::format("Compiler: {} registers/thread, {} B static shared, {} B spill stores, {} B spill loads\n",
                       m.registers_per_thread, m.static_shared_bytes, m.spill_stores_bytes, m.spill_loads_bytes);
  return out;
}

std::string format_tolerance(const config::Config& config, const config::KernelSpec& spec) {
  std::string out;
  for (const auto& a : spec.args) {
    if (!role_is_buffer(a.role) || a.role == ArgRole::input) continue;
    auto tol = config.tolerance_for(spec, a.dtype);
    out += fmt::format("- {} ({}, {}): atol {:g}, rtol {:g}: |candidate - original| <= atol + rtol * |original|\n",
                       a.name, to_string(a.dtype), to_string(a.role), tol.atol, tol.rtol);
  }
  return out.empty() ? "(no outputs)\n" : out;
}

// Where the launcher's work goes: the stream argument when the launcher takes one (the harness
// times and checks the work queued there), else the default stream.
std::string format_launch_stream(const config::KernelSpec& spec) {
  if (spec.is_global()) return "the harness's stream (it launches a kernel target's kernel itself)";
  for (const auto& a : spec.args)
    if (a.role == ArgRole::stream)
      return "the stream it is given in `" + a.name + "` (every kernel, copy and memset goes there)";
  return "the default stream";
}

// A kernel target (config/kernel_target.h) has no launcher: the harness launches the kernel
// itself, so the candidate replaces the kernel and keeps its name and parameters. Empty for a
// launcher target (whose prompt stays as it was).
std::string format_target_rule(const config::KernelSpec& spec, const std::string& signature) {
  if (!spec.is_global()) return "";
  return fmt::format(
      "\n- This target has no launcher: the harness launches `{}` itself as `{}{}<<<dim3({}), dim3({}), {}, "
      "stream>>>(...)` (block_x, block_y: the block's components). Keep `{}` with exactly the parameters of "
      "`{}`, correct for that launch; the launch sites elsewhere in the file are not run and stay as they are.",
      spec.global, spec.global, spec.template_args.empty() ? "" : "<" + spec.template_args + ">", spec.grid, spec.block,
      spec.shared_bytes.empty() ? "0" : spec.shared_bytes, spec.global, signature);
}

std::string format_size_timings(const std::vector<SizeTiming>& timings, bool original) {
  std::string out;
  for (const auto& t : timings) {
    if (original) {
      out += fmt::format("- {}: {}\n", t.size_label, median_text(t.baseline));
      continue;
    }
    out += fmt::format("- {}: {} against the original's {}", t.size_label, median_text(t.candidate),
                       median_text(t.baseline));
    if (t.speedup > 0) out += fmt::format(" ({}{})", format_speedup(t.speedup), t.significant ? "" : ", within noise");
    if (t.candidate_pct_of_floor > 0)
      out += fmt::format(", at {:.0f}% of the roofline floor", t.candidate_pct_of_floor);
    out += "\n";
  }
  return out;
}

std::string format_history(const std::vector<Outcome>& history, size_t limit) {
  if (history.empty()) return "(nothing yet)\n";
  std::string out;
  size_t start = history.size() > limit ? history.size() - limit : 0;
  if (start > 0) out += fmt::format("({} earlier candidates not shown)\n", start);
  int64_t latest = 0;
  for (const auto& h : history) latest = std::max(latest, h.round);
  for (size_t i = start; i < history.size(); ++i) {
    const auto& h = history[i];
    const bool detailed = h.round == latest;
    out += fmt::format("- {} (round {}, from {}) [{}] {} -> {}", h.id, h.round, h.parent_id, h.idea.family, h.idea.text,
                       to_string(h.verdict));
    if (verdict_is_correct(h.verdict)) out += " " + format_speedup(h.speedup);
    else if (!h.reason.empty())
      out += ": " + shorten(h.reason, detailed ? kMaxLatestReasonChars : kMaxEarlierReasonChars);
    out += "\n";
    // The last round's slow candidates with where they were slow: the next ideas start there.
    const bool slow = h.verdict == Verdict::not_faster || h.verdict == Verdict::screened_out ||
                      (h.verdict == Verdict::accepted && h.speedup < 1.0);
    if (detailed && slow && !h.timings.empty()) {
      std::string table = format_size_timings(h.timings, false);
      for (size_t at = 0; at < table.size();) {  // indented under its candidate
        size_t end = table.find('\n', at);
        out += "  " + table.substr(at, end - at + 1);
        at = end + 1;
      }
    }
  }
  return out;
}

std::string format_build(const Variant& v) {
  std::string out;
  for (const auto& d : v.defines) out += " -D" + d;
  for (const auto& f : v.nvcc_flags) out += " " + f;
  return out.empty() ? "the project's flags only" : "the project's flags plus" + out;
}

PromptBuilder::PromptBuilder(const ProposalContext& ctx, const config::LlmConfig& llm, SourceView view,
                             int64_t context_tokens)
    : ctx_(ctx), llm_(llm), view_(std::move(view)), context_tokens_(context_tokens) {}

bool PromptBuilder::fits(const ChatRequest& request) const {
  return context_tokens_ <= 0 || estimated_prompt_tokens(request) <= context_tokens_ / 2;
}

template <class Make>
ChatRequest PromptBuilder::fitted(Make make) const {
  const auto& levels = trim_levels();
  ChatRequest r = make(levels.front());
  for (size_t i = 1; i < levels.size() && !fits(r); ++i) {
    r = make(levels[i]);
    if (std::string what = describe_trim(levels[i], ctx_); !what.empty()) r.summary["trimmed"] = what;
  }
  if (r.summary.contains("trimmed"))
    spdlog::debug("llm {} {}: the prompt shows {} to fit a {}-token context", r.step, r.key,
                  r.summary["trimmed"].get<std::string>(), context_tokens_);
  return r;
}

std::map<std::string, std::string> PromptBuilder::common(const PromptTrim& trim) const {
  const std::string signature = "`" + ctx_.launcher_signature + "`";
  // A long file is shown as the launcher's excerpt: the model writes that part, which is spliced
  // back into the file (prompt_source.h).
  const bool excerpts = view_.excerpts;
  return {{"WHAT_TO_WRITE",
           excerpts ? "The file is too long to show whole, so you see an excerpt of it: the launcher, the kernels it "
                      "launches and what they use. Write the launcher " +
                          signature +
                          " with exactly that signature, the kernels it launches and any new helpers, includes or "
                          "macros they need, and nothing else of the file: your definitions replace the launcher's and "
                          "its kernels' in the file, and the rest of the file stays as it is."
                    : "Write one complete CUDA translation unit: the includes, every kernel, and the launcher\n  " +
                          signature + " with exactly that signature. It replaces the original file."},
          {"SOURCE_NOTE", excerpts ? "An excerpt of the file: the launcher, the kernels it launches and what they use; "
                                     "the rest of the file is unchanged and not shown.\n"
                                   : ""},
          {"CODE_TO_REPLY", excerpts ? "the launcher, the kernels it launches and any new helpers (not the rest of the "
                                       "file)"
                                     : "the complete translation unit"},
          {"KERNEL", ctx_.spec->name},
          {"LAUNCHER", ctx_.spec->launcher},
          {"LAUNCHER_SIGNATURE", ctx_.launcher_signature},
          {"GPU", format_gpu(ctx_.device)},
          {"PROFILE", format_profile(ctx_.baseline_profile)},
          {"TOLERANCE", format_tolerance(*ctx_.config, *ctx_.spec)},
          {"LAUNCH_STREAM", format_launch_stream(*ctx_.spec)},
          {"TARGET_RULE", format_target_rule(*ctx_.spec, ctx_.launcher_signature)},
          {"FAMILIES", describe_idea_families()},
          {"HISTORY", format_history(ctx_.history, trim.history)}};
}

ChatRequest PromptBuilder::make(const std::string& step, const std::string& key, const std::string& user) const {
  ChatRequest r;
  r.step = step;
  r.key = key;
  r.temperature = llm_.temperature;
  r.max_tokens = llm_.max_tokens_per_reply;
  r.messages = {{"system", fill_template(prompt_text("system"), common())}, {"user", user}};
  if (view_.excerpts) r.summary["excerpt"] = true;  // a replay splices the reply as this run does
  return r;
}

ChatRequest PromptBuilder::ideas(int64_t rounds) const {
  return fitted([&](const PromptTrim& trim) {
    auto v = common(trim);
    v["ROUND"] = std::to_string(ctx_.round);
    v["ROUNDS"] = std::to_string(rounds);
    v["IDEAS_WANTED"] = std::to_string(ctx_.ideas_wanted);
    v["ORIGINAL_SOURCE"] = code(ctx_.original_source);
    v["SEEDS"] = format_seeds(ctx_.seeds, v["SOURCE_NOTE"], trim.seeds_with_code,
                              [this](const std::string& source) { return code(source); });
    v["EXAMPLES"] = trim.examples ? format_examples(ctx_.examples) : "(left out to fit the model's context)\n";
    auto r = make("ideas", ideas_key(ctx_.round), fill_template(prompt_text("ideas"), v));
    r.summary.update(nlohmann::json{{"round", ctx_.round}, {"ideas_wanted", ctx_.ideas_wanted}});
    for (const auto& s : ctx_.seeds) r.summary["seeds"].push_back(s.id);
    return r;
  });
}

ChatRequest PromptBuilder::implement(const BranchRequest& req, int64_t branch) const {
  return fitted([&](const PromptTrim& trim) {
    auto v = common(trim);
    v["BRANCH"] = std::to_string(branch + 1);
    v["BRANCHES"] = std::to_string(req.branches);
    v["SEED_ID"] = req.seed.id;
    v["SEED_SPEEDUP"] = format_speedup(req.seed.speedup);
    v["SEED_TIMINGS"] = format_size_timings(req.seed.eval.timings, req.seed.id == "baseline");
    v["SEED_CODE"] = code(req.seed.variant.source);
    v["SEED_BUILD"] = format_build(req.seed.variant);
    std::string key = branch_key(branch_key_prefix(ctx_.round, req), branch);
    // The candidate the reply becomes, for people reading a recording: a crossover's id is not its key.
    std::string candidate = req.id_prefix + "-b" + std::to_string(branch);
    if (req.mate) {
      v["SEED_IDEA"] = req.seed.idea.text;
      v["MATE_ID"] = req.mate->id;
      v["MATE_SPEEDUP"] = format_speedup(req.mate->speedup);
      v["MATE_CODE"] = code(req.mate->variant.source);
      v["MATE_BUILD"] = format_build(req.mate->variant);
      v["MATE_IDEA"] = req.mate->idea.text;
      auto r = make("crossover", key, fill_template(prompt_text("crossover"), v));
      r.summary.update(
          nlohmann::json{{"seed", req.seed.id}, {"mate", req.mate->id}, {"branch", branch}, {"candidate", candidate}});
      return r;
    }
    v["IDEA"] = req.idea.idea.text;
    v["IDEA_FAMILY"] = req.idea.idea.family;
    v["IDEA_RATIONALE"] = req.idea.idea.rationale.empty() ? "(not given)" : req.idea.idea.rationale;
    auto r = make("implement", key, fill_template(prompt_text("implement"), v));
    r.summary.update(nlohmann::json{{"idea", req.idea.idea.text},
                                    {"family", req.idea.idea.family},
                                    {"seed", req.seed.id},
                                    {"branch", branch},
                                    {"candidate", candidate}});
    return r;
  });
}

ChatRequest PromptBuilder::repair(const std::string& candidate_id, const std::string& key, const Idea& idea,
                                  const Variant& failed, const std::string& compile_log) const {
  return fitted([&](const PromptTrim& trim) {
    auto v = common(trim);
    v["IDEA"] = idea.text;
    v["BUILD"] = format_build(failed);
    v["FAILED_CODE"] = code(failed.source);
    if (view_.excerpts) v["SOURCE_NOTE"] += "The compiler's line numbers are those of the whole file.\n";
    v["COMPILE_LOG"] = shorten(compile_log, kMaxLogChars, true);
    auto r = make("repair", key, fill_template(prompt_text("repair"), v));
    r.summary.update(nlohmann::json{{"candidate", candidate_id}});
    // A repair should not wander: less randomness than the exploring steps.
    r.temperature = std::min(r.temperature, 0.2);
    return r;
  });
}

}  // namespace kb::search
