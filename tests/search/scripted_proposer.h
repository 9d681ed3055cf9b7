// A Proposer for engine tests: each round's ideas and each idea's branches come from a script
// (a function of the round and the context), so a test controls exactly what the engine sees.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "search/types/proposer.h"

namespace kb::testing {

class ScriptedProposer : public search::Proposer {
 public:
  using IdeaScript = std::function<std::vector<search::ProposedIdea>(const search::ProposalContext&)>;
  using BranchScript = std::function<std::vector<search::Branch>(const search::BranchRequest&)>;

  ScriptedProposer(IdeaScript ideas, BranchScript branches)
      : ideas_(std::move(ideas)), branches_(std::move(branches)) {}

  std::string name() const override { return "scripted"; }
  std::vector<search::ProposedIdea> propose_ideas(const search::ProposalContext& ctx) override {
    std::lock_guard<std::mutex> lock(mutex_);
    contexts.push_back(ctx);
    usage_.prompt_tokens += tokens_per_round;
    return ideas_(ctx);
  }
  std::vector<search::Branch> implement(const search::ProposalContext&, const search::BranchRequest& r) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requests.push_back(r);
    }
    return branches_(r);
  }
  std::optional<Variant> repair(const search::ProposalContext&, const std::string& id, const search::Idea&,
                                const Variant& failed, const std::string& log) override {
    std::lock_guard<std::mutex> lock(mutex_);
    repairs.push_back(id);
    if (!repair_fn) return std::nullopt;
    return repair_fn(failed, log);
  }
  bool supports_crossover() const override { return crossover; }
  search::TokenUsage usage() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return usage_;
  }

  std::vector<search::ProposalContext> contexts;
  std::vector<search::BranchRequest> requests;
  std::vector<std::string> repairs;
  std::function<std::optional<Variant>(const Variant&, const std::string&)> repair_fn;
  bool crossover = false;
  int64_t tokens_per_round = 0;

 private:
  IdeaScript ideas_;
  BranchScript branches_;
  mutable std::mutex mutex_;
  search::TokenUsage usage_;
};

// An idea with a family.
inline search::ProposedIdea idea(const std::string& text, const std::string& family, const std::string& seed = "") {
  search::ProposedIdea p;
  p.idea = {text, family, "because"};
  p.seed_id = seed;
  return p;
}

// A variant whose simulated time is `us` (plus a tag that keeps variants distinct).
inline Variant timed_variant(double us, const std::string& tag, const std::string& extra = "") {
  return Variant{"// " + tag + " SIM_TIME=" + std::to_string(us) + " " + extra +
                     "\nvoid launch_k(float* y, int n) {}\n",
                 {},
                 {},
                 tag};
}

}  // namespace kb::testing
