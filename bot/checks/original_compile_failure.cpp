#include "bot/checks/original_compile_failure.h"

#include <regex>

#include "bot/checks/compile_hints.h"
#include "common/text_cut.h"

namespace kb::bot {
namespace {

// The end of a long log: nvcc's last errors are the ones about the code (the first are often
// warnings), and a terminal shows the end.
constexpr size_t kMaxLogChars = 4000;

}  // namespace

std::string with_source_names(const std::string& log, const std::string& source) {
  static const std::regex kCopy(R"((?:[^\s:"'()]*/)?variant\.cu(?:\((\d+)\)|:(\d+)))");
  std::string out;
  auto begin = std::sregex_iterator(log.begin(), log.end(), kCopy);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += log.substr(last, static_cast<size_t>(m.position()) - last);
    out += source + ":" + (m[1].matched ? m[1].str() : m[2].str());
    last = static_cast<size_t>(m.position() + m.length());
  }
  return out + log.substr(last);
}

std::string original_compile_failure(const config::Config& config, const config::KernelSpec& spec,
                                     const std::string& log) {
  const std::string named = with_source_names(log, spec.source);
  std::string out = "the original of kernel '" + spec.name + "' (" + spec.source +
                    ") does not compile as kernelbot builds it:\n" + keep_tail(named, kMaxLogChars);
  if (!out.empty() && out.back() != '\n') out += '\n';
  for (const auto& hint : compile_error_hints(named, config)) out += "hint: " + hint + "\n";
  out += "(`kernelbot check --compile` shows this for every kernel, without a GPU)";
  return out;
}

}  // namespace kb::bot
