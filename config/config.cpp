#include "config/config.h"

#include <algorithm>

namespace kb::config {

const std::vector<const char*>& distribution_names() {
  static const std::vector<const char*> names(kDistributionNames.begin(), kDistributionNames.end());
  return names;
}

const std::vector<const char*>& error_scale_names() {
  static const std::vector<const char*> names = {"plain", "abs_inputs"};
  return names;
}

HarnessBench BenchConfig::harness() const {
  return HarnessBench{.warmup_runs = warmup_runs,
                      .min_time_s = min_time_s,
                      .min_samples = min_samples,
                      .max_samples = max_samples,
                      .max_noise = max_noise,
                      .timeout_s = timeout_s,
                      .flush_l2 = flush_l2,
                      .graph_below_us = graph_below_us,
                      .max_clock_sag = max_clock_sag,
                      .max_error = max_error};
}

SourcePos KernelSpec::position_of(std::string field, const SourcePos& fallback) const {
  while (!field.empty()) {
    if (auto it = field_pos.find(field); it != field_pos.end()) return it->second;
    const size_t cut = field.find_last_of(".[");
    if (cut == std::string::npos) break;
    field.resize(cut);
  }
  return fallback;
}

std::string SizeSet::label() const {
  std::string out;
  for (const auto& [name, value] : values) out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return out.empty() ? "default" : out;
}

const KernelSpec* Config::find_kernel(const std::string& name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Tolerance Config::tolerance_for(const KernelSpec& kernel, DType dtype) const {
  std::string name = to_string(dtype);
  if (auto it = kernel.tolerance.find(name); it != kernel.tolerance.end()) return it->second;
  if (auto it = verify.tolerance.find(name); it != verify.tolerance.end()) return it->second;
  return {};
}

std::filesystem::path Config::resolve(const std::string& path) const {
  std::filesystem::path p(path);
  if (p.is_absolute() || root.empty()) return p;
  return root / p;
}

const std::string& Config::setup_source_for(const KernelSpec& kernel) const {
  return kernel.setup_source.empty() ? project.setup_source : kernel.setup_source;
}

double Config::search_max_error() const {
  // Off in [bench] is off everywhere; otherwise the search never asks for more than the PR's
  // re-verification does.
  return bench.max_error > 0 ? std::max(bench.max_error, search.max_error) : 0;
}

}  // namespace kb::config
