#include "profiler/evaluate/compile/ptxas_report.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

namespace kb::profiler {

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

namespace {
constexpr size_t kLongestPtxasLine = 8192;
}  // namespace

std::vector<PtxasFunction> parse_ptxas_report(const std::string& log) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex barriers_re(R"(used (\d+) barriers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex lmem_re(R"((\d+) bytes lmem)");

  std::vector<PtxasFunction> out;
  // Index of the entry whose lines are being read; -1 between entries or inside a device
  // function's "Function properties" block.
  long current = -1;
  bool frame_for_current = false;
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    // ptxas's lines are short (a long mangled name is a few KB); a longer one is a source line an
    // error message echoed, which a candidate controls, and libstdc++'s std::regex recurses once
    // per character a repetition matches: 100 KB of it would overflow the stack and end kernelbot.
    if (line.size() > kLongestPtxasLine) continue;
    if (std::regex_search(line, m, entry_re)) {
      PtxasFunction f;
      f.mangled = m[1];
      f.name = demangle(f.mangled);
      f.arch = m[2];
      out.push_back(f);
      current = static_cast<long>(out.size()) - 1;
      frame_for_current = false;
    } else if (std::regex_search(line, m, props_re)) {
      frame_for_current = current >= 0 && out[current].mangled == m[1].str();
    } else if (std::regex_search(line, m, frame_re)) {
      if (frame_for_current) {
        auto& f = out[current];
        f.stack_frame_bytes = std::stoll(m[1]);
        f.spill_stores_bytes = std::stoll(m[2]);
        f.spill_loads_bytes = std::stoll(m[3]);
        f.local_bytes = std::max(f.local_bytes, f.stack_frame_bytes);
      }
      frame_for_current = false;
    } else if (std::regex_search(line, m, used_re) && current >= 0) {
      auto& f = out[current];
      f.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers_re)) f.barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) f.shared_bytes = std::stoll(m[1]);
      if (std::regex_search(line, m, lmem_re)) f.local_bytes = std::max<int64_t>(f.local_bytes, std::stoll(m[1]));
      current = -1;  // the "Used" line ends an entry's report
    }
  }
  return out;
}

KernelMetrics summarize_ptxas(const std::vector<PtxasFunction>& functions) {
  KernelMetrics k;
  if (functions.empty()) {
    k.status = "no kernel in the ptxas report";
    return k;
  }
  const PtxasFunction* heaviest = &functions.front();
  for (const auto& f : functions) {
    auto weight = [](const PtxasFunction& x) {
      return std::pair(x.spill_stores_bytes + x.spill_loads_bytes, x.registers);
    };
    if (weight(f) > weight(*heaviest)) heaviest = &f;
  }
  k.status = "ok";
  k.kernel_name = heaviest->name;
  k.registers_per_thread = heaviest->registers;
  k.static_shared_bytes = heaviest->shared_bytes;
  k.local_bytes_per_thread = heaviest->local_bytes;
  k.spill_stores_bytes = heaviest->spill_stores_bytes;
  k.spill_loads_bytes = heaviest->spill_loads_bytes;
  k.stack_frame_bytes = heaviest->stack_frame_bytes;
  k.values["ptxas_kernels"] = static_cast<double>(functions.size());
  return k;
}

}  // namespace kb::profiler
