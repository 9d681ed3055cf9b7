#include "profiler/evaluate/jobs/library_load_check.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "profiler/sandbox/sandbox_process.h"

namespace kb::profiler {
namespace fs = std::filesystem;
namespace {

std::string demangled(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : symbol;
}

// The toolkit's libraries, by the prefix their C API uses. Longer prefixes first (cublasLt
// before cublas). cu + capital letter is the driver API (libcuda, from the driver, not the toolkit).
struct KnownLibrary {
  const char* prefix;
  const char* library;  // what link_libs names
};
constexpr KnownLibrary kKnown[] = {
    {"cublasLt", "cublasLt"}, {"cublas", "cublas"},     {"cufft", "cufft"},     {"curand", "curand"},
    {"cusparse", "cusparse"}, {"cusolver", "cusolver"}, {"nvrtc", "nvrtc"},     {"nvjpeg", "nvjpeg"},
    {"nccl", "nccl"},         {"cudnn", "cudnn"},       {"nvtx", "nvToolsExt"}, {"cupti", "cupti"},
    {"nvml", "nvidia-ml"},
};

std::string known_provider(const std::string& symbol) {
  for (const auto& k : kKnown)
    if (symbol.starts_with(k.prefix)) return std::string("lib") + k.library + " (link_libs = [\"" + k.library + "\"])";
  if (symbol.size() > 2 && symbol.starts_with("cu") && symbol[2] >= 'A' && symbol[2] <= 'Z')
    return "libcuda, the driver API (link_libs = [\"cuda\"])";
  return "";
}

// Whether `lib`'s dynamic symbol table defines `symbol`.
bool defines(const fs::path& lib, const std::string& symbol) {
  SandboxCommand nm;
  nm.argv = {"nm", "-D", "--defined-only", lib.string()};
  nm.limits.wall_time_s = 30;
  nm.limits.max_output_bytes = 64u << 20;
  const SandboxResult r = run_sandboxed(nm);
  if (!r.succeeded()) return false;
  // Lines are "<address> <type> <name>[@version]".
  size_t pos = 0;
  while ((pos = r.out.find(" " + symbol, pos)) != std::string::npos) {
    const size_t end = pos + 1 + symbol.size();
    if (end == r.out.size() || r.out[end] == '\n' || r.out[end] == '@') return true;
    pos = end;
  }
  return false;
}

}  // namespace

std::string undefined_symbol_in(const std::string& message) {
  static const std::string kMarker = "undefined symbol: ";
  const size_t at = message.find(kMarker);
  if (at == std::string::npos) return "";
  const size_t begin = at + kMarker.size();
  const size_t end = message.find_first_of(" ,()\n\t", begin);
  return message.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string likely_provider(const std::string& symbol, const std::vector<fs::path>& search_dirs) {
  if (symbol.empty()) return "";
  if (std::string known = known_provider(symbol); !known.empty()) return known;
  for (const auto& dir : search_dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("lib") || name.find(".so") == std::string::npos) continue;
      if (!entry.is_regular_file(ec)) continue;  // follows links: the versioned file is read once per name
      if (defines(entry.path(), symbol)) return entry.path().string();
    }
  }
  return "";
}

LoadCheck check_library_loads(const std::string& harness, const std::string& library, const fs::path& dir,
                              const HarnessLimits& limits, const std::vector<fs::path>& search_dirs) {
  fs::create_directories(dir);
  SandboxCommand cmd;
  cmd.argv = {harness, "--load-check", library};
  cmd.working_dir = dir;
  cmd.limits.wall_time_s = limits.timeout_s;
  cmd.limits.max_rss_mb = limits.max_memory_mb;
  cmd.kind = limits.sandbox;
  cmd.view = harness_view(harness, dir, {library}, {}, limits.hidden);
  for (const auto& d : limits.library_dirs) cmd.view.read_only.push_back(d);
  apply_confinement(limits.gpu, cmd);
  const SandboxResult r = run_sandboxed(cmd);
  LoadCheck check;
  if (r.succeeded()) {
    check.loaded = true;
    return check;
  }
  std::string text = r.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.starts_with("kb-harness: ")) text = text.substr(12);
  check.message = text.empty() ? "kernelbot-harness --load-check: " + r.describe() : text;
  check.undefined_symbol = undefined_symbol_in(text);
  check.provider = likely_provider(check.undefined_symbol, search_dirs);
  if (!check.undefined_symbol.empty()) check.undefined_symbol = demangled(check.undefined_symbol);
  return check;
}

}  // namespace kb::profiler
