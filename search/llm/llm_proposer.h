// The `llm` proposer: ideas and code from a chat model (and, as `replay`, from a recording of
// one). Each round it asks for ideas as JSON, then asks once per branch for a complete
// translation unit implementing an idea on a seed (or merging two seeds: crossover), and once
// for a repair when a candidate does not compile. The hybrid: when a model's candidate that
// became a seed declares tunable macros, one extra idea per round sweeps them with the
// builtin tuner, spending no tokens.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "search/llm/chat_backend.h"
#include "search/llm/exchange_keys.h"
#include "search/llm/llm_prompts.h"
#include "search/llm/prompt_source.h"
#include "search/types/proposer.h"

namespace kb::search {

// The model-driven Proposer (`llm`, and `replay` over recorded replies).
class LlmProposer : public Proposer {
 public:
  LlmProposer(std::string name, const config::Config& config, const config::KernelSpec& spec,
              std::unique_ptr<ChatBackend> backend);

  std::string name() const override { return name_; }
  std::vector<ProposedIdea> propose_ideas(const ProposalContext& ctx) override;
  std::vector<Branch> implement(const ProposalContext& ctx, const BranchRequest& request) override;
  std::optional<Variant> repair(const ProposalContext& ctx, const std::string& candidate_id, const Idea& idea,
                                const Variant& failed, const std::string& compile_log) override;
  bool supports_crossover() const override { return true; }
  void preflight() override { backend_->preflight(); }
  TokenUsage usage() const override { return backend_->usage(); }
  std::string exhausted_reason() const override;
  std::string ideas_lost() const override;
  void finish(const SearchResult& result) override { backend_->finish(result); }
  const ChatBackend& backend() const { return *backend_; }

 private:
  std::optional<ProposedIdea> tuning_idea(const ProposalContext& ctx);
  Branch implement_branch(const ProposalContext& ctx, const BranchRequest& request, int64_t branch);
  // Whether a prompt shows the launcher's excerpt of a long file (prompt_source.h): when the
  // original, or any code the prompt shows (`shown`: a seed a round grew past the prompt's size,
  // a crossover's mate, a failed candidate), is too long to show whole. Throws
  // kb::Error when such code has no excerpt either (its launcher cannot be found): it is
  // never shown cut while the prompt asks for the complete file.
  SourceView source_view(const ProposalContext& ctx, const std::vector<const std::string*>& shown = {});
  // The prompts of this round's context shown as `view`, fitted to the model's context when known.
  PromptBuilder prompts(const ProposalContext& ctx, const SourceView& view) const;
  // Asks the model for `make(view)`, stored in `asked`. A prompt the server refuses as too long,
  // when it showed whole files, is asked once more (key "-excerpt") with the excerpt, and every
  // later prompt of the search shows the excerpt; `view` says what the reply's prompt showed.
  ChatReply ask(const ProposalContext& ctx, SourceView& view, const std::function<ChatRequest(const SourceView&)>& make,
                ChatRequest& asked);

  std::string name_;
  const config::Config& config_;
  const config::KernelSpec& spec_;
  std::unique_ptr<ChatBackend> backend_;
  mutable std::mutex mutex_;
  std::set<std::string> tuned_seeds_;  // variant hashes of seeds already given a tuning idea
  std::map<std::string, std::vector<Variant>> tuning_plans_;
  std::string exhausted_;
  std::string ideas_lost_;                    // this round's: the request failed, or the reply was unreadable
  RepairKeys repair_keys_;                    // a repair is asked under the key of the exchange that wrote the code
  std::atomic<bool> excerpts_forced_{false};  // a server refused a whole file as too long
  std::atomic<bool> excerpts_said_{false};
};

}  // namespace kb::search
