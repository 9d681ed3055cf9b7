#include "profiler/judge/session/spare_servers.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace kb::judge {

std::unique_ptr<VariantProcess> SpareServers::take(Who who, int device) {
  while (!spares_.empty()) {
    std::unique_ptr<VariantProcess> spare = std::move(spares_.front());
    spares_.erase(spares_.begin());
    if (spare->device() != device || !spare->waiting_for_job()) continue;  // ended here
    spare->take_role(who);
    spdlog::debug("the {}'s server is the spare process {}", who == Who::candidate ? "candidate" : "original",
                  spare->pid());
    return spare;
  }
  return std::make_unique<VariantProcess>(who, device, verbose_);
}

void SpareServers::check(const std::optional<ProcessSettings>& judge) {
  std::erase_if(spares_, [&](const std::unique_ptr<VariantProcess>& s) {
    return !judge || !s->waiting_for_job() || process_settings(s->pid()) != judge;
  });
}

void SpareServers::refill(int device) {
  while (spares_.size() < count_) {
    try {
      spares_.push_back(std::make_unique<VariantProcess>(Who::candidate, device, verbose_));
    } catch (const std::exception& e) {  // no process to spare now: jobs start their own
      spdlog::debug("no spare server: {}", e.what());
      return;
    }
  }
}

std::vector<pid_t> SpareServers::pids() const {
  std::vector<pid_t> out;
  for (const auto& s : spares_)
    if (s->pid() > 0) out.push_back(s->pid());
  return out;
}

}  // namespace kb::judge
