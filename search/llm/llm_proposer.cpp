#include "search/llm/llm_proposer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <future>

#include "core/errors.h"
#include "search/archive/content_hash.h"
#include "search/builtin/builtin_rules.h"
#include "search/builtin/tuning_space.h"
#include "search/ideas/idea_diversity.h"
#include "search/llm/exchange_keys.h"
#include "search/llm/llm_prompts.h"
#include "search/llm/reply_parser.h"
#include "search/llm/token_ledger.h"

namespace kb::search {

namespace {

// The file a reply to an excerpt is spliced into: the one the model started from.
const std::string& base_source(const Variant& variant, const ProposalContext& ctx) {
  return variant.source.empty() ? ctx.original_source : variant.source;
}

// The whole candidate from the code a reply holds; the reason it cannot be made, as a failed
// branch's, in `failure`.
std::optional<std::string> whole_candidate(const SourceView& view, const std::string& base, const std::string& code,
                                           std::string& failure) {
  try {
    return whole_source(view, base, code);
  } catch (const std::runtime_error& e) {
    failure = "the reply cannot be spliced into " + view.path + ": " + e.what();
    return std::nullopt;
  }
}

}  // namespace

LlmProposer::LlmProposer(std::string name, const config::Config& config, const config::KernelSpec& spec,
                         std::unique_ptr<ChatBackend> backend)
    : name_(std::move(name)), config_(config), spec_(spec), backend_(std::move(backend)) {}

SourceView LlmProposer::source_view(const ProposalContext& ctx, const std::vector<const std::string*>& shown) {
  SourceView view{false, spec_.source, spec_.launcher};
  const int64_t context = backend_->context_tokens().value_or(0);
  // The longest text the prompt shows; a seed empty of source is the original.
  size_t longest = ctx.original_source.size();
  const std::string* longest_text = &ctx.original_source;
  for (const std::string* s : shown)
    if (s && s->size() > longest) longest = s->size(), longest_text = s;
  const bool too_long = too_long_for_prompt(longest, context);
  view.excerpts = excerpts_forced_ || too_long;
  // A file whose launcher cannot be found, or whose excerpt is no shorter, is shown whole; so is
  // a kernel target's (config/kernel_target.h), which has no launcher to cut the file around.
  if (view.excerpts && (spec_.is_global() || !shorter_excerpt(view, *longest_text))) view.excerpts = false;
  if (!view.excerpts && too_long && longest_text != &ctx.original_source)
    throw Error(fmt::format(
        "the code to show ({} characters) is too long to show whole and its launcher's excerpt cannot be made "
        "(the scanner finds no {} that launches a kernel in it)",
        longest, spec_.launcher));
  if (view.excerpts && !excerpts_said_.exchange(true))
    spdlog::info("{}: {} ({} characters) is too long for the prompt{}: the model is shown the launcher, the kernels "
                 "it launches and what they use, and asked for those only; its replies are spliced into the file",
                 spec_.name, longest_text == &ctx.original_source ? spec_.source : "a seed of " + spec_.source, longest,
                 context > 0 ? fmt::format(" (a context of {} tokens)", context) : "");
  return view;
}

PromptBuilder LlmProposer::prompts(const ProposalContext& ctx, const SourceView& view) const {
  return {ctx, config_.llm, view, backend_->context_tokens().value_or(0)};
}

ChatReply LlmProposer::ask(const ProposalContext& ctx, SourceView& view,
                           const std::function<ChatRequest(const SourceView&)>& make, ChatRequest& asked) {
  asked = make(view);
  ChatReply reply;
  try {
    reply = backend_->complete(asked);
  } catch (const PromptTooLong& e) {
    SourceView shorter = view;
    shorter.excerpts = true;
    if (view.excerpts || spec_.is_global() || !shorter_excerpt(shorter, ctx.original_source)) throw;
    excerpts_forced_ = true;
    excerpts_said_ = true;
    spdlog::warn("{}: the server refused the prompt as too long ({}); asking again with the launcher's excerpt of {}, "
                 "as every later prompt will",
                 spec_.name, e.what(), spec_.source);
    view = shorter;
    asked = make(view);
    asked.key += "-excerpt";
    reply = backend_->complete(asked);
  }
  if (reply.to_excerpt && !view.excerpts) {  // a replay of a run that showed excerpts here
    view.excerpts = true;
    excerpts_forced_ = true;
  }
  return reply;
}

std::optional<ProposedIdea> LlmProposer::tuning_idea(const ProposalContext& ctx) {
  std::set<std::string> tried;
  for (const auto& h : ctx.history) tried.insert(variant_hash(h.variant));
  for (const auto& seed : ctx.seeds) {
    if (seed.id == "baseline") continue;  // the original's knobs are the builtin proposer's business
    std::string seed_hash = variant_hash(seed.variant);
    if (tuned_seeds_.count(seed_hash)) continue;
    TuningSpaceOptions options;
    options.launch_bounds = false;
    options.spec_tunables = false;
    options.literal_knobs = false;  // the knobs the candidate declares, not every literal it wrote
    TuningSpace space = TuningSpace::build(seed.variant, spec_, options);
    if (space.empty()) continue;
    ProfileFacts facts = read_profile_facts(ctx.baseline_profile);
    std::vector<std::pair<double, TuningPoint>> moves;
    for (const auto& n : space.neighbours(space.default_point()))
      if (!tried.count(variant_hash(space.variant(n)))) moves.emplace_back(point_score(space, n, facts), n);
    if (moves.empty()) continue;
    std::stable_sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    tuned_seeds_.insert(seed_hash);
    std::vector<Variant> variants;
    std::string values;
    for (const auto& [score, p] : moves) {
      if (static_cast<int64_t>(variants.size()) >= ctx.branches_per_idea) break;
      variants.push_back(space.variant(p));
      values += (values.empty() ? "" : "; ") + space.describe(p);
    }
    ProposedIdea idea;
    idea.idea = {fmt::format("Tune the knobs {} declares: {}", seed.id, values), "parallelism",
                 "The candidate exposes compile-time knobs; the builtin tuner measures their neighbours "
                 "(no model tokens)."};
    idea.seed_id = seed.id;
    idea.key = "tune:" + seed.id;
    tuning_plans_[idea.key] = variants;
    return idea;
  }
  return std::nullopt;
}

std::vector<ProposedIdea> LlmProposer::propose_ideas(const ProposalContext& ctx) {
  std::vector<ProposedIdea> ideas;
  std::string failure;
  std::string lost;
  try {
    std::vector<const std::string*> seeds;
    for (const auto& seed : ctx.seeds) seeds.push_back(&seed.variant.source);
    SourceView view;
    try {
      view = source_view(ctx, seeds);
    } catch (const std::runtime_error& e) {
      // The ideas reply holds no code: a seed shown cut costs the model context, not a candidate.
      spdlog::info("round {}: a seed is shown cut: {}", ctx.round, e.what());
      view = source_view(ctx);
    }
    ChatRequest request;
    ChatReply reply = ask(
        ctx, view, [&](const SourceView& v) { return prompts(ctx, v).ideas(config_.search.rounds); }, request);
    ParsedIdeas parsed = parse_ideas(reply.content);
    if (!parsed.ok()) {
      // One reminder, as models sometimes answer with prose first.
      spdlog::warn("round {}: {}; asking once more for the JSON list", ctx.round, parsed.failure);
      request.key += "-retry";
      request.messages.push_back({"assistant", reply.content});
      request.messages.push_back({"user", "Reply with only the JSON array of ideas described above."});
      reply = backend_->complete(request);
      parsed = parse_ideas(reply.content);
    }
    if (parsed.ok()) ideas = std::move(parsed.ideas);
    else lost = "the model's idea reply held no JSON list of ideas, even after a reminder";
  } catch (const ReplayMissing& e) {
    // A replay that stops before this round is a normal end, not a failed request.
    failure = e.what();
    spdlog::info("round {}: {} ({}); no model ideas this round", ctx.round, failure, backend_->describe());
  } catch (const ChatError& e) {
    // A wrong key, URL or model fails every later request too: the search stops. The service
    // failing after its retries, or answering with nothing usable, loses this round only.
    if (e.kind == ChatFailure::configuration) throw;
    lost = std::string("the ideas request failed: ") + e.what();
  } catch (const BudgetExhausted& e) {
    failure = e.what();
  }
  if (!lost.empty()) spdlog::warn("round {}: {}; no model ideas this round", ctx.round, lost);
  IdeaSelection selection = diversify_ideas(ideas, static_cast<size_t>(std::max<int64_t>(0, ctx.ideas_wanted)));
  for (const auto& note : selection.notes) spdlog::info("round {}: {}", ctx.round, note);
  ideas = std::move(selection.ideas);
  // Numbered as kept, so that an implement key stays its candidate's id (exchange_keys.h).
  for (size_t i = 0; i < ideas.size(); ++i) ideas[i].key = model_idea_tag(i);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto tune = tuning_idea(ctx)) ideas.push_back(*tune);
  ideas_lost_ = lost;
  if (ideas.empty()) exhausted_ = !failure.empty() ? failure : !lost.empty() ? lost : "the model proposed no ideas";
  return ideas;
}

Branch LlmProposer::implement_branch(const ProposalContext& ctx, const BranchRequest& request, int64_t branch) {
  try {
    SourceView view;
    try {
      view = source_view(ctx, {&request.seed.variant.source, request.mate ? &request.mate->variant.source : nullptr});
    } catch (const std::runtime_error& e) {
      return Branch{std::nullopt, e.what()};
    }
    ChatRequest chat;
    ChatReply reply = ask(
        ctx, view, [&](const SourceView& v) { return prompts(ctx, v).implement(request, branch); }, chat);
    // Lines of the code the model started from are its own, not gaps it left.
    const std::string started_from = request.seed.variant.source + (request.mate ? request.mate->variant.source : "");
    ExtractedCode code = extract_code(reply.content, reply.finish_reason, spec_.entry(), started_from);
    if (!code.ok() && code.incomplete) {
      // A diff, an elided file or a missing launcher: models often answer with the change only.
      // One reminder naming what was wrong; its reply is judged as any other.
      spdlog::info("{}-b{}: {}; asking once more for the whole file", request.id_prefix, branch, code.failure);
      chat.key += "-retry";
      chat.messages.push_back({"assistant", reply.content});
      chat.messages.push_back({"user", "Your reply cannot be compiled as it is: " + code.failure + ". Reply with " +
                                           (view.excerpts ? "the launcher, the kernels it launches and any new "
                                                            "helpers they need (the rest of the file stays as it is)"
                                                          : "the complete translation unit (every include, every "
                                                            "kernel and the launcher)") +
                                           ", in one ```cuda code block."});
      try {
        reply = backend_->complete(chat);
        code = extract_code(reply.content, reply.finish_reason, spec_.entry(), started_from);
      } catch (const ReplayMissing&) {
        // A recording made before reminders existed: the first reply's failure stands.
      }
    }
    if (!code.ok()) return Branch{std::nullopt, code.failure, code.unreadable};
    std::string failure;
    auto source = whole_candidate(view, base_source(request.seed.variant, ctx), code.code, failure);
    if (!source) return Branch{std::nullopt, failure};
    Variant v{*source, request.seed.variant.defines, request.seed.variant.nvcc_flags,
              request.id_prefix + "-b" + std::to_string(branch)};
    return Branch{v, ""};
  } catch (const ReplayMissing& e) {
    // The engine records and logs the failed branch; its reason is all there is to say.
    return Branch{std::nullopt, e.what()};
  } catch (const ChatError& e) {
    return Branch{std::nullopt, std::string("model request failed: ") + e.what(), true};
  } catch (const BudgetExhausted& e) {
    return Branch{std::nullopt, e.what()};
  }
}

std::vector<Branch> LlmProposer::implement(const ProposalContext& ctx, const BranchRequest& request) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto plan = tuning_plans_.find(request.idea.key);
    if (plan != tuning_plans_.end()) {
      std::vector<Branch> out;
      for (const auto& v : plan->second)
        if (static_cast<int64_t>(out.size()) < request.branches) out.push_back(Branch{v, ""});
      return out;
    }
  }
  repair_keys_.remember(request.id_prefix, branch_key_prefix(ctx.round, request));
  // Branches are independent requests; asking concurrently keeps a round's latency near one reply's.
  std::vector<std::future<Branch>> pending;
  for (int64_t b = 0; b < request.branches; ++b)
    pending.push_back(std::async(std::launch::async, [&, b] { return implement_branch(ctx, request, b); }));
  std::vector<Branch> out;
  for (auto& f : pending) out.push_back(f.get());
  return out;
}

std::optional<Variant> LlmProposer::repair(const ProposalContext& ctx, const std::string& candidate_id,
                                           const Idea& idea, const Variant& failed, const std::string& compile_log) {
  try {
    SourceView view;
    try {
      view = source_view(ctx, {&failed.source});
    } catch (const std::runtime_error& e) {
      spdlog::warn("{}: no repair: {}", candidate_id, e.what());
      return std::nullopt;
    }
    ChatRequest asked;
    const std::string key = repair_keys_.key_for(candidate_id);
    ChatReply reply = ask(
        ctx, view,
        [&](const SourceView& v) { return prompts(ctx, v).repair(candidate_id, key, idea, failed, compile_log); },
        asked);
    ExtractedCode code = extract_code(reply.content, reply.finish_reason, spec_.entry(), failed.source);
    std::string failure = code.failure;
    std::optional<std::string> source;
    if (code.ok()) source = whole_candidate(view, base_source(failed, ctx), code.code, failure);
    if (!source) {
      spdlog::warn("{}: repair failed: {}", candidate_id, failure);
      return std::nullopt;
    }
    return Variant{*source, failed.defines, failed.nvcc_flags, candidate_id + "-fix"};
  } catch (const ReplayMissing& e) {
    spdlog::info("{}: no repair: {}", candidate_id, e.what());
  } catch (const ChatError& e) {
    spdlog::warn("{}: repair request failed: {}", candidate_id, e.what());
  } catch (const BudgetExhausted& e) {
    spdlog::warn("{}: no repair: {}", candidate_id, e.what());
  }
  return std::nullopt;
}

std::string LlmProposer::ideas_lost() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ideas_lost_;
}

std::string LlmProposer::exhausted_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exhausted_.empty() ? "no more ideas" : exhausted_;
}

}  // namespace kb::search
