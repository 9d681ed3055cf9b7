#include "profiler/judge/served_job.h"

#include <nlohmann/json.hpp>

#include "common/os_random.h"

namespace kb::judge {

HarnessJob served_job(const HarnessJob& job, const std::string& library) {
  HarnessJob served;
  served.mode = JobMode::time_baseline;
  served.baseline_library = library;
  served.size_labels = job.size_labels;
  served.device = job.device;
  served.bench.flush_l2 = job.bench.flush_l2;  // the server's timer flushes the L2 itself
  served.trials = 1;
  served.distributions = {"uniform"};
  served.seed = 0;
  for (const HarnessArg& a : job.args) {
    HarnessArg arg;
    arg.name = a.name;
    arg.role = a.role;
    arg.dtype = a.dtype;
    arg.counts = a.counts;
    arg.values = a.values;
    arg.ranges = a.ranges;  // a local run's indices stay in bounds (metrics, compute-sanitizer)
    served.args.push_back(std::move(arg));
  }
  return served;
}

std::string served_job_text(const HarnessJob& job, const std::string& library) {
  nlohmann::json j = served_job(job, library);
  // Always 0 for a server, and its name alone says "verify": a server's reader defaults it.
  j.erase("verify_only_sizes");
  return j.dump();
}

uint64_t fresh_server_seed() { return random_u64(); }

}  // namespace kb::judge
