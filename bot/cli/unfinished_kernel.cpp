#include "bot/cli/unfinished_kernel.h"

#include "core/errors.h"

namespace kb::bot {

void require_finished(const std::vector<const config::KernelSpec*>& kernels) {
  std::string list;
  size_t count = 0;
  for (const auto* k : kernels)
    for (const auto& u : k->unfinished) {
      list += "\n  " + u.pos.file + ":" + std::to_string(u.pos.line) + ": " + u.field + " (kernel '" + k->name + "')";
      ++count;
    }
  if (count == 0) return;
  throw UsageError(std::to_string(count) + " field" + (count == 1 ? " is" : "s are") +
                   " still \"TODO\"; fill them in (see `kernelbot config check`) before running the kernel:" + list);
}

std::vector<const config::KernelSpec*> kernels_named(const config::Config& config, const std::string& name) {
  std::vector<const config::KernelSpec*> out;
  for (const auto& k : config.kernels)
    if (name.empty() || k.name == name) out.push_back(&k);
  return out;
}

}  // namespace kb::bot
