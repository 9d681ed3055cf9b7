#include "search/types/search_tree.h"

#include <fmt/format.h>

#include "core/speedup_rule.h"
#include "cuda_source/tokens/source_scanner.h"
#include "search/types/advisory_findings.h"

namespace kb::search {

std::string candidate_id(int64_t round, size_t idea, size_t branch) {
  return fmt::format("r{}-i{}-b{}", round, idea, branch);
}

std::string idea_prefix(int64_t round, size_t idea) { return fmt::format("r{}-i{}", round, idea); }

CandidateRecord baseline_record(const Variant& original, const std::string& hash, const EvalResult& profile) {
  CandidateRecord r;
  r.id = kBaselineId;
  r.round = 0;
  r.idea = {"the original code", "original", ""};
  r.variant = original;
  r.variant_hash = hash;
  r.eval = profile;  // its verdict; its reason, speedup and median are the original's (CandidateRecord)
  r.device_index = profile.device.index;
  return r;
}

std::vector<Outcome> outcomes_of(const std::vector<CandidateRecord>& tree) {
  std::vector<Outcome> out;
  for (const auto& c : tree) {
    if (c.id == kBaselineId) continue;
    out.push_back(
        Outcome{c.id, c.parent_id, c.round, c.idea, c.variant, c.verdict(), c.reason(), c.speedup(), c.eval.timings});
  }
  return out;
}

Seed seed_of(const CandidateRecord& r) { return Seed{r.id, r.idea, r.variant, r.speedup(), r.eval}; }

std::string launcher_signature(const config::KernelSpec& spec, const std::string& source) {
  cuda_source::ScanResult scan;
  cuda_source::scan_source(source, spec.source, scan);
  auto unqualified = [](const std::string& n) {
    size_t pos = n.rfind("::");
    return pos == std::string::npos ? n : n.substr(pos + 2);
  };
  if (spec.is_global())  // a kernel target's contract is its kernel's own signature
    for (const auto& k : scan.kernels) {
      if (unqualified(k.name) != unqualified(spec.global)) continue;
      std::string params;
      for (const auto& p : k.params)
        params += (params.empty() ? "" : ", ") + p.type + (p.name.empty() ? "" : " " + p.name);
      return fmt::format("{}__global__ void {}({})",
                         k.template_params.empty() ? "" : "template <" + k.template_params + "> ", spec.global, params);
    }
  for (const auto& l : scan.launchers) {
    if (unqualified(l.name) != unqualified(spec.launcher)) continue;
    std::string params;
    for (const auto& p : l.params)
      params += (params.empty() ? "" : ", ") + p.type + (p.name.empty() ? "" : " " + p.name);
    return fmt::format("{} {}({})", l.return_type.empty() ? "void" : l.return_type, spec.launcher, params);
  }
  std::string params;
  for (const auto& a : spec.args) {
    std::string type = a.role == ArgRole::stream ? "cudaStream_t" : dtype_cpp_type(a.dtype);
    if (role_is_buffer(a.role)) type = (a.role == ArgRole::input ? "const " : "") + type + "*";
    params += (params.empty() ? "" : ", ") + type + " " + a.name;
  }
  return fmt::format("{}void {}({})", spec.is_global() ? "__global__ " : "", spec.entry(), params);
}

const CandidateRecord* best_accepted(const std::vector<CandidateRecord>& tree) {
  const CandidateRecord* best = nullptr;
  for (const auto& c : tree)
    // The rule a PR is held to (core/speedup_rule.h); [bench].min_speedup is the evaluator's to
    // apply (its accept rule) and publish's to check again, with the configuration at hand.
    if (!c.is_original() && publishable(c.eval, 0.0) && !is_advisory(c.variant) &&
        (!best || c.speedup() > best->speedup()))
      best = &c;
  return best;
}

double best_correct_speedup(const std::vector<CandidateRecord>& tree) {
  double best = 1.0;
  for (const auto& c : tree)
    if (verdict_is_correct(c.verdict()) && !c.is_original()) best = std::max(best, c.speedup());
  return best;
}

}  // namespace kb::search
