// Turns a round's context into the chat messages of each step (ideas, implement, crossover,
// repair), from the prompt files in search/prompts/. What the model sees: the code, the
// launcher signature, the GPU, the profile with roofline %, the tolerance, what was tried
// and how it went, the seeds, and archived wins.
#pragma once

#include <cstdint>
#include <string>

#include "config/config.h"
#include "search/llm/chat_backend.h"
#include "search/llm/prompt_source.h"
#include "search/types/proposer.h"

namespace kb::search {

// What one prompt shows of the search so far (the most by default; less to fit a context).
struct PromptTrim {
  size_t history = 40;                // the latest candidates listed
  size_t seeds_with_code = SIZE_MAX;  // seeds shown with their code, best first
  bool examples = true;               // the archive's wins on other kernels
};

// Builds each step's ChatRequest from one round's context. `view` says whether the code is shown
// whole or as the launcher's excerpt (and the model asked for the launcher and its kernels only).
// With `context_tokens` (the model's context, when known), each prompt is kept to half of it
// where leaving out history, seeds' code and examples can do that; the summary names what was
// left out ("trimmed").
class PromptBuilder {
 public:
  PromptBuilder(const ProposalContext& ctx, const config::LlmConfig& llm, SourceView view = {},
                int64_t context_tokens = 0);

  ChatRequest ideas(int64_t rounds) const;
  ChatRequest implement(const BranchRequest& request, int64_t branch) const;  // crossover when request.mate
  // `key` names the exchange (exchange_keys.h): the candidate's id is not always its key.
  ChatRequest repair(const std::string& candidate_id, const std::string& key, const Idea& idea, const Variant& failed,
                     const std::string& compile_log) const;

 private:
  ChatRequest make(const std::string& step, const std::string& key, const std::string& user) const;
  std::map<std::string, std::string> common(const PromptTrim& trim = {}) const;
  bool fits(const ChatRequest& request) const;
  // The first of make(trim) over ever shorter trims that fits (the shortest when none does).
  template <class Make>
  ChatRequest fitted(Make make) const;

  std::string code(const std::string& source) const { return shown_source(view_, source); }

  const ProposalContext& ctx_;
  const config::LlmConfig& llm_;
  SourceView view_;
  int64_t context_tokens_;
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
