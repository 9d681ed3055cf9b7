// Chooses and builds the proposer named by [search].proposer (or --proposer):
//   auto    -> llm when [llm].provider is not "none", else builtin
//   llm     -> a chat model over the OpenAI-compatible API ([llm])
//   builtin -> the profile-guided tuner (no model)
//   replay  -> the llm proposer reading recorded replies ([search].replay_file)
// Recording (for replay later) wraps the llm proposer's model when a record file is given or
// the environment variable KERNELBOT_RECORD names one. Replay and record paths may be one file,
// a directory (one <kernel>.jsonl per kernel: what `kernelbot run` over several kernels needs),
// or a path with {kernel} in it.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "search/llm/openai_chat_client.h"
#include "search/types/proposer.h"

namespace kb::search {

// Command-line overrides of the config for building a proposer.
struct ProposerOptions {
  std::string name;                   // overrides [search].proposer when not empty
  std::filesystem::path replay_file;  // overrides [search].replay_file when not empty
  std::filesystem::path record_file;  // empty: $KERNELBOT_RECORD, if set
  RetryPolicy retry;
};

using ProposerFactory =
    std::function<std::unique_ptr<Proposer>(const config::Config&, const config::KernelSpec&, const ProposerOptions&)>;

// The concrete proposer name "auto" stands for with this config.
std::string resolve_proposer_name(const config::Config& config, const std::string& name);

// Throws UsageError (exit 2) for an unknown name (listing the known ones) and for what the named
// proposer needs and the config or command line lacks (a model, an API key, a replay file).
std::unique_ptr<Proposer> make_proposer(const config::Config& config, const config::KernelSpec& spec,
                                        const ProposerOptions& options = {});

// The file of one kernel's recording: `path` with {kernel} replaced, or <path>/<kernel>.jsonl when
// `path` is a directory or ends in '/', else `path` itself.
std::filesystem::path per_kernel_replay_path(const std::filesystem::path& path, const std::string& kernel);

// Adds a proposer under a new name (e.g. a plug-in or a test double).
void register_proposer(const std::string& name, ProposerFactory factory);
std::vector<std::string> proposer_names();

}  // namespace kb::search
