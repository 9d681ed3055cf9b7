#include "search/engine/search_engine.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/clock.h"
#include "core/errors.h"
#include "core/number_format.h"
#include "profiler/evaluate/original_variant.h"
#include "search/archive/archive.h"
#include "search/archive/content_hash.h"
#include "search/engine/candidate_cost.h"
#include "search/engine/candidate_feed.h"
#include "search/engine/compile_prefetch.h"
#include "search/engine/round_patience.h"
#include "search/engine/round_pipeline.h"
#include "search/engine/screening.h"
#include "search/engine/search_budget.h"
#include "search/engine/seed_selection.h"
#include "search/engine/winner_metrics.h"
#include "search/ideas/variant_change.h"
#include "search/types/advisory_findings.h"
#include "search/types/proposer.h"
#include "search/types/search_tree.h"

namespace kb::search {
namespace {

constexpr size_t kArchiveExamples = 3;

std::string log_tail(const std::string& log, size_t max = 4000) {
  return log.size() <= max ? log : "..." + log.substr(log.size() - max);
}

// One search, start to end. The loop in run() reads like the method: measure the original,
// then rounds of ideas -> branches -> compile, verify, time -> seeds.
class Engine {
 public:
  explicit Engine(const SearchRequest& req)
      : req_(req),
        config_(*req.config),
        spec_(*req.spec),
        cfg_(req.config->search),
        budget_(req.config->search, req.clock ? req.clock : steady_seconds()),
        bar_(req.config->search.screen_margin,
             static_cast<size_t>(std::max<int64_t>(1, req.config->search.seeds_kept))),
        patience_(req.config->search.min_round_gain, req.config->search.patience) {
    evaluators_.push_back(req.evaluator);
    for (Evaluator* e : req.more_evaluators)
      if (e) evaluators_.push_back(e);
  }

  SearchResult run() {
    result_.kernel = spec_.name;
    result_.proposer = req_.proposer->name();
    const auto measuring = std::chrono::steady_clock::now();
    measure_baseline();
    result_.phases.original_s = seconds_since(measuring);
    if (req_.archive) {
      try {
        open_archive();
      } catch (const std::exception& e) {
        // The archive saves work; a broken one must not stop the search.
        spdlog::warn("archive {} unusable, searching without it: {}", req_.archive->path().string(), e.what());
        key_.reset();
      }
    }
    for (int64_t round = 1; round <= cfg_.rounds; ++round)
      if (!run_round(round)) break;
    if (result_.stop_reason.empty()) {
      result_.stop_reason = "rounds done";  // the kind stays as set
      for (const auto& lost : patience_.lost_rounds()) result_.stop_reason += "; " + lost;
    }
    finish();
    return std::move(result_);
  }

 private:
  void measure_baseline() {
    for (Evaluator* e : evaluators_) device_indices_.push_back(e->device().index);
    result_.device = evaluators_.front()->device();
    // The one reading of the original: every later use (baseline, archive key, diffs, the PR's
    // splice) takes this text from the result, so what is published is what was measured.
    Variant original = profiler::original_variant(config_, spec_);
    original_ = original.source;
    baseline_compiled_ = evaluators_.front()->compile(spec_, original);
    if (!baseline_compiled_.ok)
      throw OriginalDoesNotCompile(fmt::format("the original of kernel '{}' ({}) does not compile:\n{}", spec_.name,
                                               spec_.source, log_tail(baseline_compiled_.log)),
                                   baseline_compiled_.log);
    compile_ahead();
    const double measuring = budget_.elapsed_s();
    EvalResult profile = evaluators_.front()->measure_original(spec_, baseline_compiled_);
    const double measured_s = budget_.elapsed_s() - measuring;
    if (prefetch_) {
      prefetch_->stop();  // round 1's compiles take over; those under way are shared with them
      spdlog::debug("{}: {} likely candidates compiled ahead while the original was measured", spec_.name,
                    prefetch_->started());
    }
    if (!verdict_is_correct(profile.verdict))
      throw Error(fmt::format("the original of kernel '{}' fails on its own inputs ({}): {}", spec_.name,
                              to_string(profile.verdict), profile.reason));
    result_.baseline_profile = profile;
    std::string hash = variant_hash(original);
    result_.tree.push_back(baseline_record(original, hash, profile));
    seen_.insert(hash);
    signature_ = launcher_signature(spec_, original_);
    // What a candidate is expected to cost until one has run, and the time the winner's counters
    // need at the end (a metrics run of two variants, as the original's took for one).
    cost_ = std::make_unique<CandidateCost>(first_full_evaluation_guess(profile, config_.verify.trials));
    if (req_.collect_winner_metrics) tail_s_ = winner_counters_guess(profile);
    // Time the GPU was another job's (the previous kernel's re-verification) is not the measurement's.
    const double waited_s = gpu_wait_s(profile);
    spdlog::info("{}: the original measures {:.2f} us at {} on {} (measured in {:.1f} s{}; a candidate's full "
                 "evaluation is expected to take ~{:.1f} s)",
                 spec_.name, result_.tree.front().median_us(),
                 profile.timings.empty() ? "?" : profile.timings.front().size_label, result_.device.name,
                 measured_s - waited_s,
                 waited_s >= 0.1 ? fmt::format(", after {:.1f} s waiting for the GPU", waited_s) : "", cost_->full_s());
  }

  // What one more candidate needs of the wall-time budget at least: the least it can cost, and
  // the winner's counters after the search.
  double next_candidate_s() const { return cost_->least_s() + tail_s_; }

  // Starts compiling, on every core at the lowest priority, what the proposer expects round 1 to
  // ask for: the GPU is busy measuring the original meanwhile, and the CPU would otherwise wait.
  void compile_ahead() {
    ProposalContext early;
    early.config = &config_;
    early.spec = &spec_;
    early.original_source = original_;
    early.device = evaluators_.front()->device();
    early.baseline_profile.baseline_metrics = baseline_compiled_.compiler_report;
    const size_t threads = static_cast<size_t>(
        cfg_.compile_jobs > 0 ? cfg_.compile_jobs : std::max<int64_t>(1, std::thread::hardware_concurrency()));
    std::vector<Variant> likely;
    try {
      likely = req_.proposer->likely_variants(early, 2 * threads);
    } catch (const std::exception& e) {
      spdlog::debug("{}: nothing compiled ahead: {}", spec_.name, e.what());
    }
    if (!likely.empty())
      prefetch_ = std::make_unique<CompilePrefetch>(*evaluators_.front(), spec_, std::move(likely), threads);
  }

  void open_archive() {
    key_ = make_archive_key(config_, spec_, original_, result_.device);
    result_.archive_path = req_.archive->path().string();
    examples_ = req_.archive->examples(*key_, kArchiveExamples);
    if (auto best = req_.archive->best(*key_)) {
      best->id = "archive";
      best->parent_id = kBaselineId;
      best->round = 0;
      seen_.insert(best->variant_hash);
      spdlog::info("{}: starting from the archive's best, {} ({})", spec_.name, format_speedup(best->speedup()),
                   best->idea.text);
      best_seen_ = std::max(best_seen_, best->speedup());
      result_.tree.push_back(*best);
      ++result_.archive_reused;
    }
  }

  ProposalContext context(int64_t round) const {
    ProposalContext ctx;
    ctx.config = &config_;
    ctx.spec = &spec_;
    ctx.original_source = original_;
    ctx.launcher_signature = signature_;
    ctx.device = result_.device;
    ctx.baseline_profile = result_.baseline_profile;
    ctx.history = outcomes_of(result_.tree);
    for (const auto* s : select_seeds(result_.tree, cfg_.seeds_kept, cfg_.max_seeds_per_family))
      ctx.seeds.push_back(seed_of(*s));
    ctx.examples = examples_;
    ctx.round = round;
    ctx.ideas_wanted = cfg_.ideas_per_round;
    ctx.branches_per_idea = cfg_.branches_per_idea;
    ctx.candidates_left = budget_.candidates_left();
    return ctx;
  }

  const CandidateRecord* find_correct(const std::string& id) const {
    const CandidateRecord* c = result_.find(id);
    return c && verdict_is_correct(c->verdict()) ? c : nullptr;
  }

  // Crossover (from round 2): the two best seeds the model wrote, of different families if possible.
  std::optional<ProposedIdea> crossover_idea(const ProposalContext& ctx) const {
    std::vector<const Seed*> parents;
    for (const auto& s : ctx.seeds)
      if (s.id != kBaselineId && s.idea.family != "crossover") parents.push_back(&s);
    if (parents.size() < 2) return std::nullopt;
    const Seed* a = parents[0];
    const Seed* b = parents[1];
    for (const Seed* p : parents)
      if (p->idea.family != a->idea.family) {
        b = p;
        break;
      }
    ProposedIdea idea;
    idea.idea = {fmt::format("Crossover: merge {} ({}) with {} ({})", a->id, a->idea.text, b->id, b->idea.text),
                 "crossover", "Both are correct and faster for different reasons; one kernel may keep both gains."};
    idea.seed_id = a->id;
    idea.mate_id = b->id;
    idea.key = "crossover";
    return idea;
  }

  std::vector<BranchRequest> branch_requests(const ProposalContext& ctx, int64_t round,
                                             const std::vector<ProposedIdea>& ideas) const {
    std::vector<BranchRequest> requests;
    for (size_t i = 0; i < ideas.size(); ++i) {
      BranchRequest r;
      r.idea = ideas[i];
      const CandidateRecord* seed = ideas[i].seed_id.empty() ? nullptr : find_correct(ideas[i].seed_id);
      r.seed = seed ? seed_of(*seed) : ctx.seeds[i % ctx.seeds.size()];
      if (!ideas[i].mate_id.empty())
        if (const CandidateRecord* mate = find_correct(ideas[i].mate_id)) r.mate = seed_of(*mate);
      r.id_prefix = idea_prefix(round, i);
      r.branches = cfg_.branches_per_idea;
      requests.push_back(std::move(r));
    }
    return requests;
  }

  void on_finished(const CandidateRecord& r, int64_t round, int64_t planned) {
    // Called by the runner's threads, one at a time, while the round's feed may still grow.
    if (req_.archive && key_ && r.verdict() != Verdict::infra_error) {
      try {
        req_.archive->store(*key_, r, describe_variant_change(original_, r.variant, spec_.source));
      } catch (const std::exception& e) {
        spdlog::warn("{}: not archived: {}", r.id, e.what());
      }
    }
    if (verdict_is_correct(r.verdict())) best_seen_ = std::max(best_seen_, r.speedup());
    spdlog::info("  {} {} {}{}", r.id, to_string(r.verdict()),
                 verdict_is_correct(r.verdict()) ? format_speedup(r.speedup()) : r.reason(),
                 r.compile_cached ? " (compile cached)" : "");
    if (req_.on_progress) {
      try {
        req_.on_progress(SearchProgress{round, budget_.candidates_used(), planned, best_seen_,
                                        fmt::format("{} {}", r.id, to_string(r.verdict()))});
      } catch (const std::exception& e) {
        spdlog::warn("progress callback failed: {}", e.what());
      }
    }
  }

  // Ends the search: records why, as a kind and in words. Returns false (no further round).
  bool stop(SearchStop kind, std::string reason) {
    result_.stop = kind;
    result_.stop_reason = std::move(reason);
    return false;
  }

  bool run_round(int64_t round) {
    if (auto spent = budget_.exhausted(req_.proposer->usage(), next_candidate_s()); !spent.empty()) {
      return stop(SearchStop::budget, spent);
    }
    ProposalContext ctx = context(round);
    std::vector<ProposedIdea> ideas;
    const auto proposing = std::chrono::steady_clock::now();
    try {
      ideas = req_.proposer->propose_ideas(ctx);
    } catch (const std::exception& e) {
      spdlog::error("round {}: proposer failed: {}", round, e.what());
      return stop(SearchStop::proposer_failed, std::string("proposer failed: ") + e.what());
    }
    result_.phases.proposing_s += seconds_since(proposing);
    const std::string ideas_lost = req_.proposer->ideas_lost();
    if (round >= 2 && req_.proposer->supports_crossover())
      if (auto c = crossover_idea(ctx)) ideas.push_back(*c);
    if (ideas.empty()) {
      if (ideas_lost.empty()) return stop(SearchStop::proposer_exhausted, req_.proposer->exhausted_reason());
      // Nothing was learnt about this round's ideas: the next round asks again.
      result_.rounds_run = round;
      const double best = best_correct_speedup(result_.tree);
      return after_round(RoundReport{round, best, best, ideas_lost});
    }
    auto requests = branch_requests(ctx, round, ideas);
    result_.rounds_run = round;
    spdlog::info("round {}/{}: {} ideas from {} seeds, up to {} branches each", round, cfg_.rounds, ideas.size(),
                 ctx.seeds.size(), cfg_.branches_per_idea);
    for (const auto& r : requests)
      spdlog::info("  idea {} [{}] on {}: {}", r.id_prefix, r.idea.idea.family, r.seed.id, r.idea.idea.text);

    // Ideas are implemented concurrently: a model's replies take seconds each.
    std::vector<std::future<std::vector<Branch>>> implemented;
    for (const auto& r : requests)
      implemented.push_back(std::async(std::launch::async, [&, r] {
        try {
          return req_.proposer->implement(ctx, r);
        } catch (const std::exception& e) {
          return std::vector<Branch>{Branch{std::nullopt, std::string("the proposer failed: ") + e.what(), true}};
        }
      }));

    CandidateFeed feed;
    // Whether the round learnt anything: branches lost to protocol errors and the evaluator's
    // failures say nothing about the ideas (round_patience.h).
    int64_t informative = 0, lost = 0;
    std::string lost_reason = ideas_lost;
    std::atomic<int64_t> planned{budget_.candidates_used()};
    std::atomic<bool> dropped{false};
    RoundSettings settings;
    settings.compile_jobs = cfg_.compile_jobs > 0 ? cfg_.compile_jobs
                                                  : std::max<int64_t>(1, std::thread::hardware_concurrency());
    settings.repair_attempts = config_.llm.repair_attempts;
    settings.eval_options.time = true;
    settings.eval_options.sanitize = config_.verify.sanitize;
    settings.eval_options.max_error = config_.search_max_error();
    settings.screening_bar = cfg_.screening ? &bar_ : nullptr;
    settings.screening_economy = &economy_;
    RoundHooks hooks;
    settings.gpu_wait_s = &result_.phases.gpu_wait_s;
    settings.cost = cost_.get();
    // Nothing is compiled or started that cannot finish within the wall-time budget.
    std::mutex why_mutex;
    std::string out_of_time;
    hooks.reserve = [&] {
      bool ok = budget_.time_for(next_candidate_s()) && budget_.reserve_candidate();
      if (!ok) dropped = true;
      return ok;
    };
    hooks.may_start = [&](double seconds) { return budget_.time_for(seconds + tail_s_); };
    hooks.on_unevaluated = [&](const CandidateRecord& r, double seconds) {
      dropped = true;
      const std::string why = fmt::format("budget: wall time ({:g} s): {:.0f} s left, less than a candidate takes "
                                          "(~{:.0f} s)",
                                          budget_.max_wall_time_s(), budget_.time_left_s(), seconds + tail_s_);
      spdlog::info("  {} compiled, not evaluated: {}", r.id, why);
      std::lock_guard lock(why_mutex);
      if (out_of_time.empty()) out_of_time = why;
    };
    hooks.repair = [&](const CandidateRecord& failed) {
      return req_.proposer->repair(ctx, failed.id, failed.idea, failed.variant, failed.eval.compile_log);
    };
    hooks.on_finished = [&](const CandidateRecord& r) { on_finished(r, round, planned.load()); };
    // The GPUs start on the first idea's branches while later ideas are still being written.
    auto running = std::async(std::launch::async, [&] {
      return run_candidates(spec_, baseline_compiled_, feed, evaluators_, device_indices_, settings, hooks);
    });
    {
      FeedCloser closer(feed);
      // In idea order, whatever order the replies come in: which of two identical variants is
      // evaluated, and every id, stay the same from run to run.
      for (size_t i = 0; i < requests.size(); ++i) {
        auto branches = implemented[i].get();
        for (size_t b = 0; b < branches.size() && static_cast<int64_t>(b) < cfg_.branches_per_idea; ++b) {
          if (branches[b].lost) {
            ++lost;
            if (lost_reason.empty()) lost_reason = branches[b].failure;
          } else if (!branches[b].variant) {
            ++informative;
          }
          if (auto job = add_branch(requests[i], round, candidate_id(round, i, b), branches[b])) {
            ++planned;
            feed.add(std::move(*job));
          } else if (branches[b].variant) {
            ++informative;  // a variant this search or the archive has measured
          }
        }
      }
    }
    // Failed branches and archive reuses of this round are in the tree now, the runner's
    // candidates not yet: a reuse is no gain of this round's.
    const double best_before = best_correct_speedup(result_.tree);
    auto records = running.get();
    int64_t evaluated = 0, infra = 0;
    std::string infra_reason;
    for (auto& r : records) {
      seen_.insert(r.variant_hash);
      if (r.verdict() == Verdict::infra_error) {
        ++infra;
        infra_reason = r.reason();
      } else {
        ++informative;
      }
      ++evaluated;
      result_.tree.push_back(std::move(r));
    }
    double best_after = best_correct_speedup(result_.tree);
    const CandidateRecord* best = best_accepted(result_.tree);
    spdlog::info("round {} done: {} candidates, best so far {} ({:.0f} s elapsed)", round, evaluated,
                 best ? fmt::format("{} ({})", format_speedup(best->speedup()), best->id)
                      : std::string("none accepted"),
                 budget_.elapsed_s());

    if (evaluated > 0 && infra == evaluated) {
      return stop(SearchStop::evaluator_failing, "evaluator failing: " + infra_reason);
    }
    if (dropped) {
      std::string spent = budget_.exhausted(req_.proposer->usage(), next_candidate_s());
      if (spent.empty()) spent = out_of_time.empty() ? "budget: candidates" : out_of_time;
      return stop(SearchStop::budget, spent);
    }
    const bool round_lost = !ideas_lost.empty() || (informative == 0 && lost + infra > 0);
    if (round_lost && lost_reason.empty()) lost_reason = infra_reason;
    return after_round(RoundReport{round, best_before, best_after, round_lost ? lost_reason : ""});
  }

  // Whether the search goes on after a round, by [search].patience.
  bool after_round(const RoundReport& report) {
    const size_t lost_before = patience_.lost_rounds().size();
    std::string reason = patience_.after_round(report);
    if (patience_.lost_rounds().size() > lost_before)
      spdlog::warn("{}: not counted as a round without gain", patience_.lost_rounds().back());
    if (!reason.empty()) return stop(SearchStop::no_gain, std::move(reason));
    if (cfg_.patience > 0 && patience_.without_gain() > 0)
      spdlog::info("round {}: no gain ({} of {} rounds without gain before the search stops)", report.round,
                   patience_.without_gain(), cfg_.patience);
    return true;
  }

  // One branch into the tree, or the candidate to evaluate: a failed branch is recorded as
  // rejected, a variant already evaluated in this run is dropped, one the archive knows is reused.
  std::optional<CandidateRecord> add_branch(const BranchRequest& req, int64_t round, const std::string& id,
                                            const Branch& branch) {
    CandidateRecord r;
    r.id = id;
    r.parent_id = req.seed.id;
    r.round = round;
    r.idea = req.idea.idea;
    if (!branch.variant) {
      r.eval.verdict = Verdict::rejected;
      r.eval.reason = "no candidate: " + branch.failure;
      spdlog::info("  {} rejected: {}", id, r.reason());
      result_.tree.push_back(r);
      return std::nullopt;
    }
    r.variant = *branch.variant;
    if (r.variant.label.empty()) r.variant.label = id;
    r.variant_hash = variant_hash(r.variant);
    if (!seen_.insert(r.variant_hash).second) {
      spdlog::debug("  {}: the same variant was already evaluated in this search; skipped", id);
      return std::nullopt;
    }
    std::optional<CandidateRecord> archived;
    if (req_.archive && key_) {
      try {
        archived = req_.archive->find(*key_, r.variant_hash);
      } catch (const std::exception& e) {
        spdlog::warn("archive lookup failed: {}", e.what());
      }
    }
    if (archived) {
      archived->id = r.id;
      archived->parent_id = r.parent_id;
      archived->round = round;
      archived->idea = r.idea;
      archived->variant.label = r.variant.label;
      spdlog::info("  {} {} (from the archive)", id, to_string(archived->verdict()));
      result_.tree.push_back(*archived);
      ++result_.archive_reused;
      return std::nullopt;
    }
    return r;
  }

  void finish() {
    if (const CandidateRecord* best = best_accepted(result_.tree)) result_.best_id = best->id;
    result_.advisories = collect_advisory_findings(result_.tree);
    for (const auto& a : result_.advisories) spdlog::info("{}: {}", spec_.name, advisory_text(a));
    TokenUsage usage = req_.proposer->usage();
    result_.budget.candidates = budget_.candidates_used();
    result_.budget.prompt_tokens = usage.prompt_tokens;
    result_.budget.completion_tokens = usage.completion_tokens;
    result_.budget.cost_usd = usage.cost_usd;
    result_.budget.llm_requests = usage.requests;
    count_phase_use(result_.tree, cfg_.screening, result_.phases);
    if (req_.collect_winner_metrics) {
      const auto collecting = std::chrono::steady_clock::now();
      collect_winner_metrics(spec_, *evaluators_.front(), baseline_compiled_, result_);
      result_.phases.winner_metrics_s = seconds_since(collecting);
    }
    // The winner's counters are part of the search's time: the budget held room for them.
    result_.budget.wall_time_s = budget_.elapsed_s();
    spdlog::info("{}: {}", spec_.name, phases_summary(result_.phases));
    if (cfg_.screening) spdlog::info("{}: {}", spec_.name, economy_.summary());
    const CandidateRecord* best = result_.best();
    spdlog::info("{}: search ended ({}) after {} candidates in {:.0f} s; {}", spec_.name, result_.stop_reason,
                 result_.budget.candidates, result_.budget.wall_time_s,
                 best ? fmt::format("winner {} at {}", best->id, format_speedup(best->speedup()))
                      : std::string("nothing beat the original"));
    req_.proposer->finish(result_);
  }

  const SearchRequest& req_;
  const config::Config& config_;
  const config::KernelSpec& spec_;
  const config::SearchConfig& cfg_;
  SearchBudget budget_;
  std::unique_ptr<CandidateCost> cost_;  // from the original's measurement, then the candidates'
  double tail_s_ = 0;                    // kept for the winner's counters after the search
  ScreeningBar bar_;                     // kept across rounds: a winner of round 1 screens round 2's candidates
  ScreeningEconomy economy_;             // kept across rounds too: what a screening costs and saves here
  RoundPatience patience_;               // rounds without gain, and the lost rounds that are not
  std::vector<Evaluator*> evaluators_;
  std::vector<int64_t> device_indices_;
  SearchResult result_;
  std::string original_;
  std::string signature_;
  CompiledVariant baseline_compiled_;
  std::unique_ptr<CompilePrefetch> prefetch_;  // compiles ahead while the original is measured
  std::optional<ArchiveKey> key_;
  std::vector<ArchiveExample> examples_;
  std::set<std::string> seen_;
  double best_seen_ = 1.0;
};

}  // namespace

SearchResult run_search(const SearchRequest& request) {
  if (!request.config || !request.spec || !request.evaluator || !request.proposer)
    throw Error("run_search needs a config, a kernel spec, an evaluator and a proposer");
  Engine engine(request);
  return engine.run();
}

}  // namespace kb::search
