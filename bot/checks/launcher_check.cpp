#include "bot/checks/launcher_check.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "bot/checks/output_read_check.h"
#include "bot/checks/scanned_sources.h"
#include "bot/onboarding/param_types.h"
#include "common/edit_distance.h"
#include "config/size_expression.h"
#include "cuda_source/tokens/source_scanner.h"
#include "profiler/device_query.h"

namespace kb::bot {
namespace {

using config::ArgSpec;
using config::KernelSpec;
using cuda_source::ScannedLauncher;
using cuda_source::ScannedParam;

std::string param_text(const ScannedParam& p) {
  return p.type + (p.name.empty() ? "" : " " + p.name) + (p.default_value.empty() ? "" : " = " + p.default_value);
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return buf;
}

class KernelChecker {
 public:
  KernelChecker(const config::Config& config, const KernelSpec& k, size_t index, LauncherFindings& out,
                ScannedSourceCache& sources)
      : config_(config), k_(k), field_("kernel[" + std::to_string(index) + "]"), out_(out), sources_(sources) {}

  void run(const MemoryLimit& memory) {
    check_memory(memory);
    const ScannedLauncher* l = find_launcher();
    if (!l) return;
    check_args(*l, sources_.aliases(k_.source, include_dirs()));
    warn_outputs_read_first(*l);
  }

 private:
  // An output the kernel reads before it writes it computes from the judge's poison.
  void warn_outputs_read_first(const ScannedLauncher& found) {
    std::vector<std::string> files = {k_.source};
    files.insert(files.end(), k_.extra_sources.begin(), k_.extra_sources.end());
    const ScannedSources& sources = sources_.scanned(files);  // scanned once for every table
    const ScannedLauncher* function = &found;
    if (!k_.is_global())
      if (const ScannedLauncher* with_launches = sources.launcher_of(found)) function = with_launches;
    static const std::string kUnread;
    const auto text_of = [&](const std::string& file) -> const std::string& {
      const auto it = sources.texts.find(file);
      return it == sources.texts.end() ? kUnread : it->second;
    };
    for (const auto& f : outputs_read_first(k_, *function, k_.is_global(), sources.scan, text_of))
      warning(k_.args[f.arg].pos, field_ + ".arg[" + std::to_string(f.arg) + "].role", f.message);
  }

  // Each finding points at its field's own line where the file has one (`at` is the table's).
  void error(const config::SourcePos& at, const std::string& field, const std::string& message) {
    const config::SourcePos p = k_.position_of(field, at);
    out_.errors.push_back({config_.file.string(), p.line, p.column, field, message});
  }
  void warning(const config::SourcePos& at, const std::string& field, const std::string& message) {
    const config::SourcePos p = k_.position_of(field, at);
    out_.warnings.push_back({config_.file.string(), p.line, p.column, field, message});
  }
  std::string where(const ScannedLauncher& l, const ScannedParam& p) const {
    return l.file + ":" + std::to_string(p.line ? p.line : l.line) + ": `" + param_text(p) + "`";
  }
  std::vector<std::string> include_dirs() const {
    std::vector<std::string> dirs = config_.project.include_dirs;
    dirs.insert(dirs.end(), k_.include_dirs.begin(), k_.include_dirs.end());
    return dirs;
  }

  // The launcher in `source` (or in the kernel's extra sources): the overload whose parameter
  // count fits the arguments; an error listing the candidates or naming a near spelling if none.
  const ScannedLauncher* find_launcher() {
    std::vector<std::string> files = {k_.source};
    files.insert(files.end(), k_.extra_sources.begin(), k_.extra_sources.end());
    const ScannedSources& sources = sources_.scanned(files);
    if (!sources.read_error.empty()) {  // a directory, a FIFO, no permission: say so, not "no function"
      error(k_.pos, sources.unreadable_file == 0 ? field_ + ".source" : field_ + ".extra_sources", sources.read_error);
      return nullptr;
    }
    // A kernel target's [[kernel.arg]]s are its __global__ function's parameters.
    const auto& pool = k_.is_global() ? sources.kernels : sources.scan.functions;
    const std::string key = field_ + (k_.is_global() ? ".global" : ".launcher");
    const std::vector<const ScannedLauncher*> named = sources.named(k_.entry(), k_.is_global());
    if (named.empty()) {
      std::vector<std::string> names;
      for (const auto& f : pool) names.push_back(f.name);
      std::string near = closest_match(k_.entry(), names);
      if (near.empty()) {
        std::vector<std::string> short_names;
        for (const auto& f : pool) short_names.push_back(cuda_source::unqualified_name(f.name));
        near = closest_match(cuda_source::unqualified_name(k_.entry()), short_names);
      }
      // The first few by name: a file of thousands of launchers is not listed whole.
      constexpr size_t kListed = 20;
      std::vector<std::string> listed;
      for (const auto& l : sources.scan.launchers)
        if (!l.is_kernel && !k_.is_global()) listed.push_back(l.name);
      if (k_.is_global())
        for (const auto& l : sources.kernels) listed.push_back(l.name);
      std::string launchers;
      for (size_t i = 0; i < listed.size() && i < kListed; ++i) launchers += (i ? ", " : "") + listed[i];
      if (listed.size() > kListed) launchers += " and " + std::to_string(listed.size() - kListed) + " more";
      error(k_.pos, key,
            "no " + std::string(k_.is_global() ? "__global__ function" : "function") + " '" + k_.entry() +
                "' is defined in " + k_.source + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                (launchers.empty() ? ""
                 : k_.is_global()  ? "; its kernels: " + launchers
                                   : "; its launchers: " + launchers));
      return nullptr;
    }
    std::vector<const ScannedLauncher*> fitting;
    for (const auto* f : named)
      if (required_params(*f) <= k_.args.size() && k_.args.size() <= f->params.size()) fitting.push_back(f);
    if (fitting.size() == 1) return fitting.front();
    if (fitting.size() > 1) {
      // Same count: the overloads whose parameter names the args use, then whose types they fit.
      std::vector<const ScannedLauncher*> by_name;
      for (const auto* f : fitting) {
        bool same = true;
        for (size_t i = 0; i < k_.args.size(); ++i) same &= f->params[i].name == k_.args[i].name;
        if (same) by_name.push_back(f);
      }
      if (by_name.empty()) by_name = fitting;
      const auto& aliases = sources_.aliases(k_.source, include_dirs());
      // The overload the args fit with the fewest errors; its errors are then reported.
      std::vector<std::pair<size_t, const ScannedLauncher*>> ranked;
      for (const auto* f : by_name) {
        LauncherFindings trial;
        KernelChecker quiet(config_, k_, 0, trial, sources_);
        quiet.check_args(*f, aliases);
        ranked.push_back({trial.errors.size(), f});
      }
      std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      if (ranked.size() == 1 || ranked[0].first < ranked[1].first) return ranked[0].second;
      error(k_.pos, key,
            "'" + k_.entry() + "' has " + std::to_string(fitting.size()) + " overloads taking " +
                std::to_string(k_.args.size()) + " arguments (" + candidates(fitting) +
                "); name the [[kernel.arg]]s as the wanted overload's parameters");
      return nullptr;
    }
    if (named.size() == 1) {
      report_count_mismatch(*named.front());
      return nullptr;
    }
    error(k_.pos, field_ + ".arg",
          "no overload of '" + k_.entry() + "' takes " + std::to_string(k_.args.size()) +
              " arguments; candidates: " + candidates(named));
    return nullptr;
  }

  std::string candidates(const std::vector<const ScannedLauncher*>& list) const {
    std::string out;
    for (const auto* f : list) {
      std::string params;
      for (const auto& p : f->params) params += (params.empty() ? "" : ", ") + param_text(p);
      out += (out.empty() ? "" : "; ") + f->file + ":" + std::to_string(f->line) + " " + f->name + "(" + params + ")";
    }
    return out;
  }

  // When every argument is named as a parameter, in order, but some parameters are passed over:
  // those (bar defaulted ones at the end) are missing. Empty when the names do not line up so.
  std::vector<size_t> skipped_params(const ScannedLauncher& l) const {
    std::vector<size_t> skipped;
    size_t next = 0;
    for (const auto& a : k_.args) {
      size_t at = next;
      while (at < l.params.size() && l.params[at].name != a.name) ++at;
      if (at == l.params.size()) return {};
      for (size_t i = next; i < at; ++i) skipped.push_back(i);
      next = at + 1;
    }
    for (size_t i = next; i < required_params(l); ++i) skipped.push_back(i);
    return skipped;
  }

  void report_missing(const ScannedLauncher& l, const std::vector<size_t>& missing) {
    for (size_t i : missing)
      error(k_.pos, field_ + ".arg",
            "missing [[kernel.arg]] for parameter #" + std::to_string(i + 1) + " '" + l.params[i].name + "' of " +
                l.name + " (" + where(l, l.params[i]) + ")");
  }

  void report_count_mismatch(const ScannedLauncher& l) {
    if (auto skipped = skipped_params(l); !skipped.empty()) return report_missing(l, skipped);
    if (k_.args.size() < required_params(l)) {
      for (size_t i = k_.args.size(); i < required_params(l); ++i)
        error(k_.pos, field_ + ".arg",
              "missing [[kernel.arg]] for parameter #" + std::to_string(i + 1) + " '" + l.params[i].name + "' of " +
                  l.name + " (" + where(l, l.params[i]) + ")");
    } else {
      for (size_t i = l.params.size(); i < k_.args.size(); ++i)
        error(k_.args[i].pos, field_ + ".arg[" + std::to_string(i) + "]",
              "argument '" + k_.args[i].name + "' has no parameter: " + l.name + " (" + l.file + ":" +
                  std::to_string(l.line) + ") takes " + std::to_string(l.params.size()));
    }
  }

 public:
  void check_args(const ScannedLauncher& l, const cuda_source::TypeAliases& aliases) {
    if (auto skipped = skipped_params(l); !skipped.empty()) {
      // Named in order with gaps: report the gaps, and judge each argument by its own parameter.
      report_missing(l, skipped);
      for (size_t i = 0; i < k_.args.size(); ++i) {
        auto p = std::find_if(l.params.begin(), l.params.end(),
                              [&](const ScannedParam& q) { return q.name == k_.args[i].name; });
        check_type(k_.args[i], *p, l, classify_param(p->type, aliases), field_ + ".arg[" + std::to_string(i) + "]");
      }
      return;
    }
    for (size_t i = 0; i < k_.args.size() && i < l.params.size(); ++i) {
      const ArgSpec& a = k_.args[i];
      const ScannedParam& p = l.params[i];
      std::string field = field_ + ".arg[" + std::to_string(i) + "]";
      // Order: an argument named as another parameter is in the wrong place.
      if (!p.name.empty() && a.name != p.name) {
        auto other = std::find_if(l.params.begin(), l.params.end(),
                                  [&](const ScannedParam& q) { return q.name == a.name; });
        if (other != l.params.end())
          error(a.pos, field + ".name",
                "'" + a.name + "' is parameter #" + std::to_string(other - l.params.begin() + 1) + " of " + l.name +
                    ", but it stands at #" + std::to_string(i + 1) + ", where " + where(l, p) +
                    " is (arguments go in parameter order)");
      }
      check_type(a, p, l, classify_param(p.type, aliases), field);
    }
  }

 private:
  void check_type(const ArgSpec& a, const ScannedParam& p, const ScannedLauncher& l, const ParamType& t,
                  const std::string& field) {
    std::string at = " (" + where(l, p) + ")";
    std::string role = to_string(a.role);
    if (t.kind == ParamKind::opaque)
      return error(a.pos, field, "parameter '" + p.name + "' cannot be driven: " + t.why_not_drivable + at);
    if ((a.role == ArgRole::stream) != (t.kind == ParamKind::stream))
      return error(a.pos, field + ".role",
                   a.role == ArgRole::stream
                       ? "role \"stream\" needs a cudaStream_t parameter" + at
                       : "a cudaStream_t parameter needs role = \"stream\", not \"" + role + "\"" + at);
    if (a.role == ArgRole::stream) return;
    bool buffer = role_is_buffer(a.role);
    if (buffer && t.kind != ParamKind::pointer)
      return error(a.pos, field + ".role", "role \"" + role + "\" needs a pointer parameter" + at);
    if (!buffer && t.kind == ParamKind::pointer)
      return error(a.pos, field + ".role",
                   "a pointer parameter needs role \"input\", \"output\", \"inout\" or \"workspace\", not \"" + role +
                       "\"" + at);
    if (t.const_pointee && (a.role == ArgRole::output || a.role == ArgRole::inout || a.role == ArgRole::workspace))
      return error(a.pos, field + ".role",
                   "role \"" + role + "\" on a const pointer: the kernel cannot write through it" + at);
    if (!t.dtype) {
      std::string alias = t.aliases.empty() ? "" : " (" + describe_aliases(t.aliases) + ")";
      return warning(a.pos, field + ".dtype",
                     "cannot tell whether '" + t.element + "' is " + to_string(a.dtype) + alias + at);
    }
    if (*t.dtype == a.dtype) return;
    // Sizes and integer scalars pass by value: a same-width integer of the other signedness is fine.
    bool same_width_ints = !dtype_is_float(*t.dtype) && !dtype_is_float(a.dtype) &&
                           dtype_size(*t.dtype) == dtype_size(a.dtype);
    if (same_width_ints && !buffer) return;
    std::string alias = t.aliases.empty() ? "" : "; " + describe_aliases(t.aliases);
    std::string message = "dtype \"" + std::string(to_string(a.dtype)) + "\" does not match the parameter's " +
                          (buffer ? "element type '" : "type '") + t.element + "' (" + to_string(*t.dtype) + ")" +
                          alias + at;
    if (same_width_ints) warning(a.pos, field + ".dtype", message);
    else error(a.pos, field + ".dtype", message);
  }

  // Every buffer of one size set must fit on the GPU together (the harness holds them at once).
  void check_memory(const MemoryLimit& memory) {
    for (size_t s = 0; s < k_.sizes.size(); ++s) {
      double total = 0;
      for (const auto& a : k_.args) {
        if (!role_is_buffer(a.role) || a.count == config::todo_marker) continue;
        try {
          total += static_cast<double>(config::evaluate_count(a.count, k_.sizes[s].values)) *
                   static_cast<double>(dtype_size(a.dtype));
        } catch (const std::exception&) {
          // An unknown name or a bad expression is the loader's to report.
        }
      }
      if (total > static_cast<double>(memory.bytes))
        error(k_.pos, field_ + ".sizes[" + std::to_string(s) + "]",
              "the buffers of size set " + k_.sizes[s].label() + " take " + gib(total) + ", more than " +
                  memory.source + "; check the counts and sizes");
    }
  }

  const config::Config& config_;
  const KernelSpec& k_;
  std::string field_;
  LauncherFindings& out_;
  ScannedSourceCache& sources_;
};

}  // namespace

LauncherFindings check_launchers(const config::Config& config, const MemoryLimit& memory) {
  LauncherFindings out;
  ScannedSourceCache sources(config);  // each file read and scanned once for every table
  for (size_t i = 0; i < config.kernels.size(); ++i)
    KernelChecker(config, config.kernels[i], i, out, sources).run(memory);
  return out;
}

MemoryLimit device_memory_limit() {
  try {
    auto devices = profiler::query_devices();
    if (!devices.empty() && devices.front().memory_bytes > 0)
      return {devices.front().memory_bytes, "the GPU's " + gib(static_cast<double>(devices.front().memory_bytes)) +
                                                " (" + devices.front().name + ")"};
  } catch (const std::exception&) {
    // No GPU here: fall through to the stated assumption.
  }
  return {int64_t{80} << 30, "an assumed 80 GiB (no GPU visible to tell the real size)"};
}

}  // namespace kb::bot
