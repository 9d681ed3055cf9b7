#include "core/gpu_arch.h"

#include <cctype>

namespace kb {

std::string GpuArch::sm() const { return "sm_" + std::to_string(cc) + (suffix ? std::string(1, suffix) : ""); }

std::string GpuArch::compute() const {
  return "compute_" + std::to_string(cc) + (suffix ? std::string(1, suffix) : "");
}

std::vector<std::string> ArchBuild::nvcc_flags() const {
  return {"-gencode", "arch=" + arch.compute() + ",code=" + (ptx_only ? arch.compute() : arch.sm())};
}

std::optional<GpuArch> parse_gpu_arch(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_"})
    if (text.substr(0, prefix.size()) == prefix) {
      text.remove_prefix(prefix.size());
      break;
    }
  GpuArch arch;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    arch.suffix = text.back();
    text.remove_suffix(1);
  }
  std::string digits;
  if (const size_t dot = text.find('.'); dot != std::string_view::npos) {
    // "8.6": a major of one or two digits and a minor of one.
    if (dot == 0 || dot > 2 || text.size() != dot + 2) return std::nullopt;
    digits = std::string(text.substr(0, dot)) + text.back();
  } else {
    digits = std::string(text);
  }
  if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  arch.cc = std::stoi(digits);
  if (arch.cc < 10) return std::nullopt;  // "05"
  return arch;
}

}  // namespace kb
