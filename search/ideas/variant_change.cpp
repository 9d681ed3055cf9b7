#include "search/ideas/variant_change.h"

#include "common/unified_diff.h"

namespace kb::search {

std::string describe_variant_change(const std::string& original_source, const Variant& variant,
                                    const std::string& name) {
  std::string out;
  if (!variant.defines.empty()) {
    out += "# defines:";
    for (const auto& d : variant.defines) out += " -D" + d;
    out += "\n";
  }
  if (!variant.nvcc_flags.empty()) {
    out += "# nvcc flags:";
    for (const auto& f : variant.nvcc_flags) out += " " + f;
    out += "\n";
  }
  return out + unified_diff(original_source, variant.source, name);
}

}  // namespace kb::search
