// Turns a round's context into the chat messages of each step (ideas, implement, crossover,
// repair), from the prompt files in search/prompts/. What the model sees: the code, the
// launcher signature, the GPU, the profile with roofline %, the tolerance, what was tried
// and how it went, the seeds, and archived wins.
#pragma once

#include <string>

#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/prompt_source.h"
#include "search/proposer.h"

namespace kb::search {

// Builds each step's ChatRequest from one round's context. `view` says whether the code is shown
// whole or as the launcher's excerpt (and the model asked for the launcher and its kernels only).
class PromptBuilder {
 public:
  PromptBuilder(const ProposalContext& ctx, const config::LlmConfig& llm, SourceView view = {});

  ChatRequest ideas(int64_t rounds) const;
  ChatRequest implement(const BranchRequest& request, int64_t branch) const;  // crossover when request.mate
  // `key` names the exchange (exchange_keys.h): the candidate's id is not always its key.
  ChatRequest repair(const std::string& candidate_id, const std::string& key, const Idea& idea, const Variant& failed,
                     const std::string& compile_log) const;

 private:
  ChatRequest make(const std::string& step, const std::string& key, const std::string& user) const;
  std::map<std::string, std::string> common() const;

  std::string code(const std::string& source) const { return shown_source(view_, source); }

  const ProposalContext& ctx_;
  const config::LlmConfig& llm_;
  SourceView view_;
};

// Pieces of the prompts, exposed for tests and for the PR body's idea path.
std::string format_gpu(const DeviceInfo& device);
std::string format_profile(const EvalResult& profile);
std::string format_tolerance(const config::Config& config, const config::KernelSpec& spec);
// "the default stream", or the stream argument the launcher must queue its work on.
std::string format_launch_stream(const config::KernelSpec& spec);
// Every candidate so far, one line each; the latest round's failures with their whole reason (a
// wrong result's failing case) and its slow candidates with their per-size timings.
std::string format_history(const std::vector<Outcome>& history, size_t limit = 40);
// One line per size: the candidate's median against the original's, the ratio, the share of the
// roofline floor; `original`: the original's medians alone.
std::string format_size_timings(const std::vector<SizeTiming>& timings, bool original);
std::string format_build(const Variant& variant);

}  // namespace kb::search
