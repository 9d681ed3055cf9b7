#include "profiler/judge/wire/served_job.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "common/os_random.h"

namespace kb::judge {

HarnessJob served_job(const HarnessJob& job, const std::string& library) {
  HarnessJob served;
  served.mode = JobMode::time_baseline;
  served.baseline_library = library;
  // The configured size sets only: the sizes verification draws beyond them (verify_only_sizes,
  // the last ones) are bound as bare counts (server_wire.h), so a candidate cannot look up which
  // sizes it will be judged at and be right at those alone.
  const size_t configured = job.size_labels.size() - static_cast<size_t>(job.verify_only_sizes);
  const auto first = [configured](const auto& v) {
    return std::decay_t<decltype(v)>(v.begin(),
                                     v.begin() + static_cast<std::ptrdiff_t>(std::min(configured, v.size())));
  };
  served.size_labels = first(job.size_labels);
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
    arg.counts = first(a.counts);
    arg.values = first(a.values);
    arg.ranges = first(a.ranges);  // a local run's indices stay in bounds (metrics, compute-sanitizer)
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
