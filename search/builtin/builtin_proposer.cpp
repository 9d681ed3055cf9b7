#include "search/builtin/builtin_proposer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace kb::search {
namespace {

constexpr size_t kEnumerateLimit = 200'000;

std::vector<std::string> unique_values(const TuningSpace& space, const std::vector<size_t>& dims,
                                       const std::vector<TuningPoint>& points) {
  std::vector<std::string> values;
  for (const auto& p : points) {
    std::string v = dims.size() == 1 && space.dimensions()[dims[0]].is_numeric_knob()
                        ? space.dimensions()[dims[0]].values[p[dims[0]]]
                        : space.describe(p);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  return values;
}

std::vector<size_t> differing(const TuningPoint& a, const TuningPoint& b) {
  std::vector<size_t> out;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) out.push_back(i);
  return out;
}

}  // namespace

BuiltinProposer::BuiltinProposer(const config::Config& config, const config::KernelSpec& spec, uint64_t random_seed)
    : config_(config), spec_(spec), rng_(random_seed) {}

void BuiltinProposer::ensure_space(const ProposalContext& ctx) {
  if (space_) return;
  facts_ = read_profile_facts(ctx.baseline_profile);
  TuningSpaceOptions options;
  options.fast_math = fast_math_allowed(config_, spec_);
  options.registers = facts_.registers;
  space_ = TuningSpace::build(Variant{ctx.original_source, {}, {}, "original"}, spec_, options);
  std::string dims;
  for (const auto& d : space_->dimensions())
    dims += fmt::format("{}{} ({} values)", dims.empty() ? "" : ", ", d.name, d.values.size());
  spdlog::info("builtin tuner: {} points over {}{}", space_->size(), dims.empty() ? "nothing" : dims,
               options.fast_math ? "" : "; --use_fast_math not tried (a float output's rtol is under 1e-3)");
}

void BuiltinProposer::learn_broken_values(const ProposalContext& ctx) {
  const TuningPoint base = space_->default_point();
  for (const auto& h : ctx.history) {
    if (h.verdict != Verdict::wrong_result && h.verdict != Verdict::crashed && h.verdict != Verdict::compile_error)
      continue;
    const auto p = space_->point_of(h.variant);
    if (!p) continue;
    const auto dims = differing(base, *p);
    if (dims.size() != 1) continue;  // two knobs changed: which one broke it is not known
    const TuningDimension& d = space_->dimensions()[dims[0]];
    if (broken_.insert({dims[0], (*p)[dims[0]]}).second)
      spdlog::info("builtin tuner: {} = {} gave {}: not proposed again", d.words(), d.values[(*p)[dims[0]]],
                   to_string(h.verdict));
  }
}

bool BuiltinProposer::breaks(const TuningPoint& point) const {
  return std::any_of(broken_.begin(), broken_.end(), [&](const auto& b) { return point[b.first] == b.second; });
}

std::vector<BuiltinProposer::Planned> BuiltinProposer::plan_exhaustive(const std::vector<TuningPoint>& untried) const {
  std::vector<std::pair<double, TuningPoint>> ranked;
  for (const auto& p : untried) ranked.emplace_back(point_score(*space_, p, facts_), p);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    size_t ca = space_->changed_dimensions(a.second).size(), cb = space_->changed_dimensions(b.second).size();
    if (ca != cb) return ca < cb;
    return a.first > b.first;
  });
  // One plan per set of changed dimensions, in the order their best point ranks.
  std::vector<Planned> plans;
  for (const auto& [score, p] : ranked) {
    auto dims = space_->changed_dimensions(p);
    auto it = std::find_if(plans.begin(), plans.end(), [&](const Planned& pl) { return pl.dims == dims; });
    if (it == plans.end()) plans.push_back(Planned{dims, {p}, "baseline"});
    else it->points.push_back(p);
  }
  return plans;
}

std::vector<BuiltinProposer::Planned> BuiltinProposer::plan_local(const ProposalContext& ctx,
                                                                  const std::set<std::string>& tried, size_t capacity) {
  std::vector<Planned> plans;
  std::set<std::string> taken = tried;
  std::vector<std::pair<std::string, TuningPoint>> starts;
  for (const auto& seed : ctx.seeds)
    if (auto p = space_->point_of(seed.variant)) starts.emplace_back(seed.id, *p);
  if (starts.empty()) starts.emplace_back("baseline", space_->default_point());
  size_t planned = 0;
  for (const auto& [seed_id, start] : starts) {
    std::vector<std::pair<double, TuningPoint>> moves;
    for (const auto& n : space_->neighbours(start))
      if (!taken.count(space_->key(n)) && !breaks(n)) moves.emplace_back(point_score(*space_, n, facts_), n);
    std::stable_sort(moves.begin(), moves.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [score, n] : moves) {
      auto dims = differing(start, n);
      // `seed = seed_id`: clang before 16 (clang-tidy's) cannot capture a structured binding.
      auto it = std::find_if(plans.begin(), plans.end(), [&dims, &seed = seed_id](const Planned& pl) {
        return pl.dims == dims && pl.seed_id == seed;
      });
      if (it == plans.end()) plans.push_back(Planned{dims, {n}, seed_id});
      else it->points.push_back(n);
      taken.insert(space_->key(n));
      ++planned;
    }
  }
  // A random restart each round keeps the search from settling in the first basin it finds.
  size_t restart = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(ctx.branches_per_idea),
                                                        capacity > planned ? capacity - planned : 1));
  Planned random{{}, {}, "baseline"};
  for (int attempt = 0; attempt < 1000 && random.points.size() < restart; ++attempt) {
    auto p = space_->random_point(rng_);
    if (p && !taken.count(space_->key(*p)) && !breaks(*p)) {
      taken.insert(space_->key(*p));
      random.points.push_back(*p);
    }
  }
  if (!random.points.empty()) {
    // Keep a slot for it even when the neighbours alone would fill the round.
    size_t keep = static_cast<size_t>(std::max<int64_t>(1, ctx.ideas_wanted - 1));
    if (plans.size() > keep) plans.resize(keep);
    plans.push_back(random);
  }
  return plans;
}

std::vector<ProposedIdea> BuiltinProposer::propose_ideas(const ProposalContext& ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  ensure_space(ctx);
  if (space_->empty()) {
    exhausted_ = fmt::format("nothing to tune: {} has no tunable macro, no literal launch knob (block size, "
                             "const local, dim3 shape, unroll factor), no launch with a constant block size and no "
                             "compiler flag its tolerance or profile calls for",
                             spec_.source);
    return {};
  }
  learn_broken_values(ctx);
  std::set<std::string> tried = proposed_;
  tried.insert(space_->key(space_->default_point()));
  for (const auto& h : ctx.history)
    if (auto p = space_->point_of(h.variant)) tried.insert(space_->key(*p));
  size_t capacity = static_cast<size_t>(
      std::max<int64_t>(0, std::min(ctx.ideas_wanted * ctx.branches_per_idea, ctx.candidates_left)));
  if (capacity == 0) {
    exhausted_ = "candidate budget spent";
    return {};
  }
  std::vector<Planned> plans;
  if (space_->size() <= kEnumerateLimit) {
    auto all = space_->enumerate(kEnumerateLimit);
    std::vector<TuningPoint> untried;
    size_t broken = 0;
    for (const auto& p : all)
      if (breaks(p)) ++broken;
      else if (!tried.count(space_->key(p))) untried.push_back(p);
    if (untried.empty()) {
      exhausted_ = fmt::format("search space exhausted: all {} points tried", all.size()) +
                   (broken ? fmt::format(" or left out ({} with a value that broke the kernel)", broken) : "");
      return {};
    }
    if (static_cast<int64_t>(untried.size()) <= ctx.candidates_left) plans = plan_exhaustive(untried);
    else plans = plan_local(ctx, tried, capacity);
  } else {
    plans = plan_local(ctx, tried, capacity);
  }
  std::vector<ProposedIdea> ideas;
  size_t used = 0;
  for (auto& plan : plans) {
    if (static_cast<int64_t>(ideas.size()) >= ctx.ideas_wanted || used >= capacity) break;
    // A plan larger than one idea's branches becomes several ideas.
    for (size_t start = 0; start < plan.points.size(); start += static_cast<size_t>(ctx.branches_per_idea)) {
      if (static_cast<int64_t>(ideas.size()) >= ctx.ideas_wanted || used >= capacity) break;
      size_t n = std::min({static_cast<size_t>(ctx.branches_per_idea), plan.points.size() - start, capacity - used});
      std::vector<TuningPoint> points(plan.points.begin() + static_cast<long>(start),
                                      plan.points.begin() + static_cast<long>(start + n));
      ProposedIdea idea;
      if (plan.dims.empty()) {
        idea.idea = {fmt::format("Random restart: {} untried points of the tuning space", points.size()), "parallelism",
                     "Local search can settle in a poor basin; a few random points test others."};
      } else {
        idea.idea = explain_idea(*space_, plan.dims, unique_values(*space_, plan.dims, points), facts_);
      }
      idea.seed_id = plan.seed_id;
      idea.key = "builtin-" + std::to_string(next_key_++);
      for (const auto& p : points) proposed_.insert(space_->key(p));
      plans_[idea.key] = points;
      used += n;
      ideas.push_back(std::move(idea));
    }
  }
  if (ideas.empty()) exhausted_ = "no untried point near the best ones";
  return ideas;
}

std::vector<Branch> BuiltinProposer::implement(const ProposalContext&, const BranchRequest& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Branch> out;
  auto it = plans_.find(request.idea.key);
  if (it == plans_.end() || !space_) {
    out.push_back(Branch{std::nullopt, "the builtin tuner did not propose idea '" + request.idea.key + "'"});
    return out;
  }
  for (const auto& p : it->second) {
    if (static_cast<int64_t>(out.size()) >= request.branches) break;
    out.push_back(Branch{space_->variant(p), ""});
  }
  return out;
}

std::vector<Variant> BuiltinProposer::likely_variants(const ProposalContext& ctx, size_t limit) {
  // A space of its own, from the compiler's facts: the proposer's space is built once, from the
  // measured profile, when round 1 asks.
  const ProfileFacts facts = read_profile_facts(ctx.baseline_profile);
  TuningSpaceOptions options;
  options.fast_math = fast_math_allowed(config_, spec_);
  options.registers = facts.registers;
  const TuningSpace space = TuningSpace::build(Variant{ctx.original_source, {}, {}, "original"}, spec_, options);
  if (space.empty() || space.size() > kEnumerateLimit) return {};
  const TuningPoint start = space.default_point();
  std::vector<std::pair<double, TuningPoint>> near, far;
  for (const auto& p : space.neighbours(start)) near.emplace_back(point_score(space, p, facts), p);
  for (const auto& p : space.enumerate(kEnumerateLimit))
    if (differing(start, p).size() > 1) far.emplace_back(point_score(space, p, facts), p);
  auto by_score = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::stable_sort(near.begin(), near.end(), by_score);
  std::stable_sort(far.begin(), far.end(), by_score);
  std::vector<Variant> out;
  for (const auto* list : {&near, &far})
    for (const auto& [score, p] : *list) {
      if (out.size() >= limit) return out;
      out.push_back(space.variant(p));
    }
  return out;
}

std::string BuiltinProposer::exhausted_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return exhausted_.empty() ? "no more ideas" : exhausted_;
}

}  // namespace kb::search
