#include "search/factory/proposer_factory.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "common/file_io.h"
#include "core/errors.h"
#include "search/builtin/builtin_proposer.h"
#include "search/llm/llm_proposer.h"
#include "search/llm/replay_log.h"
#include "search/llm/token_ledger.h"

namespace kb::search {
namespace {

std::filesystem::path record_path(const ProposerOptions& options) {
  if (!options.record_file.empty()) return options.record_file;
  const char* env = std::getenv("KERNELBOT_RECORD");
  return env && *env ? std::filesystem::path(env) : std::filesystem::path();
}

// Reads the kernel's recording. One of another kernel would only produce candidates with the
// wrong launcher; say so before any of them is compiled.
std::unique_ptr<ReplayChatBackend> open_replay(const std::filesystem::path& file, const std::string& kernel) {
  if (!std::filesystem::exists(file))
    throw UsageError("the replay file " + file.string() + " for kernel '" + kernel + "' does not exist");
  if (!std::filesystem::is_regular_file(file)) {
    try {
      (void)try_read_text_file(file);  // refuses a FIFO, a device or a directory at once, saying which
    } catch (const Error& e) {
      throw UsageError("the replay file for kernel '" + kernel + "': " + e.what());
    }
  }
  std::unique_ptr<ReplayChatBackend> replay;
  try {
    replay = std::make_unique<ReplayChatBackend>(file);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());  // a file the user named that is not a recording: theirs to fix (exit 2)
  }
  const std::string recorded_kernel = replay->file().header.value("kernel", "");
  if (!recorded_kernel.empty() && recorded_kernel != kernel)
    throw UsageError("the replay file " + file.string() + " records kernel '" + recorded_kernel + "', not '" + kernel +
                     "': pass a directory of <kernel>.jsonl files, or a path with "
                     "{kernel} in it, to replay several kernels");
  return replay;
}

std::unique_ptr<ChatBackend> maybe_record(std::unique_ptr<ChatBackend> backend, const config::Config& config,
                                          const config::KernelSpec& spec, const ProposerOptions& options) {
  auto path = record_path(options);
  if (path.empty()) return backend;
  path = per_kernel_replay_path(path, spec.name);
  nlohmann::json header{{"kernel", spec.name},
                        {"model", config.llm.model},
                        {"base_url", config.llm.base_url},
                        {"rounds", config.search.rounds},
                        {"ideas_per_round", config.search.ideas_per_round},
                        {"branches_per_idea", config.search.branches_per_idea}};
  return std::make_unique<RecordingChatBackend>(std::move(backend), path, header);
}

std::unique_ptr<Proposer> make_llm(const config::Config& config, const config::KernelSpec& spec,
                                   const ProposerOptions& options) {
  if (config.llm.model.empty())
    throw UsageError("the llm proposer needs a model: set [llm].provider = \"openai-compatible\" and "
                     "[llm].model in the config");
  auto ledger = TokenLedger::from_config(config);
  std::unique_ptr<ChatBackend> backend = std::make_unique<OpenAiChatClient>(config.llm, ledger, options.retry);
  return std::make_unique<LlmProposer>("llm", config, spec, maybe_record(std::move(backend), config, spec, options));
}

std::unique_ptr<Proposer> make_replay(const config::Config& config, const config::KernelSpec& spec,
                                      const ProposerOptions& options) {
  std::filesystem::path file = options.replay_file;
  if (file.empty() && !config.search.replay_file.empty()) file = config.resolve(config.search.replay_file);
  if (file.empty())
    throw UsageError("the replay proposer needs a file of recorded replies: --replay FILE or [search].replay_file");
  std::unique_ptr<ChatBackend> backend = open_replay(per_kernel_replay_path(file, spec.name), spec.name);
  return std::make_unique<LlmProposer>("replay", config, spec, maybe_record(std::move(backend), config, spec, options));
}

}  // namespace

std::filesystem::path per_kernel_replay_path(const std::filesystem::path& path, const std::string& kernel) {
  std::string text = path.string();
  if (auto at = text.find("{kernel}"); at != std::string::npos) {
    for (; at != std::string::npos; at = text.find("{kernel}", at + kernel.size())) text.replace(at, 8, kernel);
    return text;
  }
  if (std::filesystem::is_directory(path) || (!text.empty() && text.back() == '/')) return path / (kernel + ".jsonl");
  return path;
}

namespace {

std::unique_ptr<Proposer> make_builtin(const config::Config& config, const config::KernelSpec& spec,
                                       const ProposerOptions&) {
  // A fixed random seed: the same config explores the same points, run after run.
  return std::make_unique<BuiltinProposer>(config, spec, 0x6b65726e656c626full);
}

struct Registry {
  std::mutex mutex;
  std::map<std::string, ProposerFactory> factories{{"llm", make_llm},
                                                   {"replay", make_replay},
                                                   {"builtin", make_builtin}};
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string resolve_proposer_name(const config::Config& config, const std::string& name) {
  std::string n = name.empty() ? config.search.proposer : name;
  if (n == "auto") return config.llm.provider != "none" ? "llm" : "builtin";
  return n;
}

std::unique_ptr<Proposer> make_proposer(const config::Config& config, const config::KernelSpec& spec,
                                        const ProposerOptions& options) {
  std::string name = resolve_proposer_name(config, options.name);
  ProposerFactory factory;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().factories.find(name);
    if (it != registry().factories.end()) factory = it->second;
  }
  if (!factory) {
    std::string known = "auto";
    for (const auto& n : proposer_names()) known += ", " + n;
    throw UsageError("unknown proposer '" + name + "' (known: " + known + ")");
  }
  return factory(config, spec, options);
}

void register_proposer(const std::string& name, ProposerFactory factory) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().factories[name] = std::move(factory);
}

std::vector<std::string> proposer_names() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  std::vector<std::string> names;
  for (const auto& [name, f] : registry().factories) names.push_back(name);
  return names;
}

}  // namespace kb::search
