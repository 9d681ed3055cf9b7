#include "search/types/advisory_findings.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/number_format.h"
#include "cuda_source/knobs/literal_knobs.h"

namespace kb::search {

bool is_advisory(const Variant& variant) { return cuda_source::find_advisory_probe(variant.source).has_value(); }

std::vector<AdvisoryFinding> collect_advisory_findings(const std::vector<CandidateRecord>& tree) {
  std::vector<AdvisoryFinding> out;
  for (const auto& c : tree) {
    if (c.verdict() != Verdict::accepted) continue;
    auto probe = cuda_source::find_advisory_probe(c.variant.source);
    if (!probe) continue;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const AdvisoryFinding& f) { return f.subject == probe->subject; });
    AdvisoryFinding finding{c.id, probe->subject, probe->value, c.variant.label, c.speedup()};
    if (same == out.end()) out.push_back(finding);
    else if (c.speedup() > same->speedup) *same = finding;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const AdvisoryFinding& a, const AdvisoryFinding& b) { return a.speedup > b.speedup; });
  return out;
}

std::string advisory_text(const AdvisoryFinding& f) {
  // The label names every knob of the measured variant; when the probe was not alone, say so.
  bool alone = f.setting.find(',') == std::string::npos;
  return fmt::format("advisory: {} measured {} faster at {} (verified{}); change it at the call sites", f.subject,
                     format_speedup(f.speedup), f.value, alone ? "" : "; measured as " + f.setting);
}

}  // namespace kb::search
