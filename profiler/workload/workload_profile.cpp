#include "profiler/workload/workload_profile.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/errors.h"

namespace kb::profiler {
namespace {

std::string shape(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

std::string last_component(const std::string& qualified) {
  size_t at = qualified.rfind("::");
  return at == std::string::npos ? qualified : qualified.substr(at + 2);
}

}  // namespace

std::string kernel_base_name(const std::string& demangled, bool strip_scope_and_templates) {
  // Cut the parameter list: the first '(' outside template brackets.
  int depth = 0;
  size_t end = demangled.size();
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  std::string head = demangled.substr(0, end);
  // Template instances carry their return type ("void ns::k<64>"): drop what stands before the
  // last space outside template brackets.
  depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++depth;
    else if (head[i] == '>') --depth;
    else if (head[i] == ' ' && depth == 0) start = i + 1;
  }
  std::string name = head.substr(start);
  if (!strip_scope_and_templates) return name;
  std::string plain;
  depth = 0;
  for (char c : name) {
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (depth == 0) plain += c;
  }
  return last_component(plain);
}

WorkloadRecording read_workload_recording(const std::filesystem::path& file) {
  std::ifstream f(file);
  if (!f) throw Error("cannot read the workload profile " + file.string());
  WorkloadRecording r;
  try {
    nlohmann::json j = nlohmann::json::parse(f);
    r.pid = j.value("pid", 0);
    r.command = j.value("command", "");
    r.dropped_records = j.value("dropped_records", 0);
    r.first_start_ns = j.value("first_start_ns", 0);
    r.last_end_ns = j.value("last_end_ns", 0);
    for (const auto& k : j.at("kernels")) {
      LaunchGroup g;
      g.name = k.at("name").get<std::string>();
      g.mangled = k.value("mangled", g.name);
      g.device = k.value("device", 0u);
      for (int i = 0; i < 3; ++i) {
        g.grid[i] = k.at("grid").at(i).get<int64_t>();
        g.block[i] = k.at("block").at(i).get<int64_t>();
      }
      g.calls = k.at("calls").get<uint64_t>();
      g.total_ns = k.at("total_ns").get<uint64_t>();
      g.min_ns = k.value("min_ns", uint64_t{0});
      g.max_ns = k.value("max_ns", uint64_t{0});
      g.registers = k.value("registers", 0);
      r.groups.push_back(std::move(g));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": not a kernelbot workload profile (" + e.what() + ")");
  }
  return r;
}

WorkloadRanking rank_workload(const std::vector<WorkloadRecording>& recordings, const cuda_source::ScanResult& scan,
                              const config::Config* config) {
  struct Merge {
    RankedKernel k;
    uint64_t total_ns = 0, min_ns = UINT64_MAX, max_ns = 0;
    std::map<std::pair<std::string, std::string>, uint64_t> shapes;  // (grid, block) -> calls
  };
  std::map<std::string, Merge> by_signature;
  WorkloadRanking out;
  out.processes = recordings.size();
  for (const auto& rec : recordings) {
    out.dropped_records += rec.dropped_records;
    for (const auto& g : rec.groups) {
      Merge& m = by_signature[g.name];
      m.k.signature = g.name;
      m.k.calls += g.calls;
      m.total_ns += g.total_ns;
      if (g.calls > 0) {
        m.min_ns = std::min(m.min_ns, g.min_ns);
        m.max_ns = std::max(m.max_ns, g.max_ns);
      }
      m.k.registers = std::max(m.k.registers, g.registers);
      m.shapes[{shape(g.grid), shape(g.block)}] += g.calls;
    }
  }
  uint64_t all_ns = 0;
  for (const auto& [sig, m] : by_signature) all_ns += m.total_ns;

  for (auto& [sig, m] : by_signature) {
    RankedKernel k = m.k;
    k.name = kernel_base_name(sig, false);
    k.total_ms = static_cast<double>(m.total_ns) / 1e6;
    k.mean_us = k.calls ? static_cast<double>(m.total_ns) / 1e3 / static_cast<double>(k.calls) : 0;
    k.min_us = m.min_ns == UINT64_MAX ? 0 : static_cast<double>(m.min_ns) / 1e3;
    k.max_us = static_cast<double>(m.max_ns) / 1e3;
    k.share = all_ns ? static_cast<double>(m.total_ns) / static_cast<double>(all_ns) : 0;
    auto common = std::max_element(m.shapes.begin(), m.shapes.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
    if (common != m.shapes.end()) {
      std::string more = m.shapes.size() > 1 ? " (+" + std::to_string(m.shapes.size() - 1) + " more)" : "";
      k.grid = common->first.first + more;
      k.block = common->first.second + more;
    }
    // Back to the source: kernels are matched by their unqualified name, as the scanner reads
    // them without expanding namespaces of definitions in headers.
    const std::string plain = kernel_base_name(sig, true);
    for (const auto& sk : scan.kernels)
      if (sk.is_definition && sk.name == plain) k.sources.push_back(sk.file + ":" + std::to_string(sk.line));
    // The launchers whose own body launches it are listed; those that reach it through a helper
    // they call (a test, the program, a wrapper) only count for matching a configured launcher.
    std::vector<std::string> reaching;
    for (const auto& l : scan.launchers)
      for (const auto& launch : l.launches)
        if (last_component(launch.kernel) == plain) {
          auto& list = launch.in_launcher_scope() ? k.launchers : reaching;
          if (std::find(list.begin(), list.end(), l.name) == list.end()) list.push_back(l.name);
          break;
        }
    reaching.insert(reaching.begin(), k.launchers.begin(), k.launchers.end());
    if (config)
      for (const auto& spec : config->kernels)
        for (const auto& launcher : reaching)
          if (launcher == spec.launcher || last_component(launcher) == last_component(spec.launcher)) {
            if (std::find(k.configured.begin(), k.configured.end(), spec.name) == k.configured.end())
              k.configured.push_back(spec.name);
          }
    out.total_calls += k.calls;
    out.kernels.push_back(std::move(k));
  }
  out.total_kernel_ms = static_cast<double>(all_ns) / 1e6;
  std::sort(out.kernels.begin(), out.kernels.end(), [](const RankedKernel& a, const RankedKernel& b) {
    return a.total_ms != b.total_ms ? a.total_ms > b.total_ms : a.signature < b.signature;
  });
  for (size_t i = 0; i < out.kernels.size(); ++i) out.kernels[i].rank = static_cast<int>(i + 1);
  return out;
}

}  // namespace kb::profiler
