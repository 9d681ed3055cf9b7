#include "search/builtin/tuning_space.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <map>

#include "cuda_source/knobs/launch_bounds.h"
#include "cuda_source/tokens/preprocessor_directives.h"
#include "search/builtin/spec_overload.h"

namespace kb::search {
namespace {

// A tied knob (a template argument or #define the block is written with) at `v`: each block
// dimension v^power within the device's limits (1024, 1024, 64), the block of 32 to 1024 threads.
bool tied_block_fits(const cuda_source::LiteralKnob& knob, int64_t v) {
  if (knob.block_powers.empty()) return true;
  if (v < 1) return false;
  static const int64_t kMost[] = {1024, 1024, 64};
  int64_t threads = 1;
  for (size_t axis = 0; axis < knob.block_powers.size() && axis < 3; ++axis) {
    int64_t component = 1;
    for (int p = 0; p < knob.block_powers[axis] && component <= 1024; ++p) component *= v;
    if (component > kMost[axis]) return false;
    threads *= component;
  }
  return threads >= 32 && threads <= 1024;
}

std::optional<std::pair<std::string, std::string>> split_define(const std::string& define) {
  size_t eq = define.find('=');
  if (eq == std::string::npos) return std::pair{define, std::string("1")};
  return std::pair{define.substr(0, eq), define.substr(eq + 1)};
}

size_t index_of(std::vector<std::string>& values, const std::string& v) {
  auto it = std::find(values.begin(), values.end(), v);
  if (it != values.end()) return static_cast<size_t>(it - values.begin());
  values.push_back(v);
  return values.size() - 1;
}

int64_t as_int(const std::string& s, int64_t fallback) {
  try {
    size_t used = 0;
    int64_t v = std::stoll(s, &used);
    return used == s.size() ? v : fallback;
  } catch (...) {
    return fallback;
  }
}

// The value the [[kernel.arg]] named `name` passes, when it is a scalar or size with an integer value.
std::optional<int64_t> configured_value(const config::KernelSpec& spec, const std::string& name) {
  for (const auto& a : spec.args)
    if (a.name == name && (a.role == ArgRole::scalar || a.role == ArgRole::size))
      if (auto v = cuda_source::integer_value(a.value)) return v;
  return std::nullopt;
}

// Register caps worth trying for a kernel that uses `registers` per thread: the powers of two
// from 32 below it (at most the two closest), so ptxas trades registers for occupancy.
std::vector<std::string> register_caps(int64_t registers) {
  std::vector<std::string> caps;
  for (int64_t cap : {128, 64, 32})
    if (cap < registers && caps.size() < 2) caps.push_back(fmt::format("-maxrregcount={}", cap));
  return caps;
}

}  // namespace

TuningSpace TuningSpace::build(const Variant& base, const config::KernelSpec& spec, const TuningSpaceOptions& options) {
  TuningSpace space;
  space.base_ = base;
  space.launcher_ = spec.launcher;
  space.add_macro_dimensions(spec, options);
  if (options.literal_knobs && spec.is_global()) space.add_kernel_target_dimensions(spec);
  else if (options.literal_knobs) space.add_launcher_knob_dimensions(spec);
  space.add_compiler_dimensions(spec, options);
  return space;
}

// The spec's [[kernel]].tunables first (they keep the config's values), then every tunable macro
// the source defines; a macro is offered once.
void TuningSpace::add_macro_dimensions(const config::KernelSpec& spec, const TuningSpaceOptions& options) {
  std::map<std::string, std::string> base_defines;
  for (const auto& d : base_.defines)
    if (auto kv = split_define(d)) base_defines[kv->first] = kv->second;
  const auto macros = cuda_source::detect_tunable_macros(base_.source);
  if (options.spec_tunables)
    for (const auto& [name, values] : spec.tunables) {
      const cuda_source::TunableMacro* found = nullptr;
      for (const auto& m : macros)
        if (m.name == name) found = &m;
      std::optional<std::string> def;
      if (found && found->default_value) def = std::to_string(*found->default_value);
      add_macro_dimension(base_defines, name, values, found ? found->role : cuda_source::MacroRole::other, def);
    }
  for (const auto& m : macros) {
    std::optional<std::string> def;
    if (m.default_value) def = std::to_string(*m.default_value);
    add_macro_dimension(base_defines, m.name, cuda_source::sweep_values(m), m.role, def);
  }
}

void TuningSpace::add_macro_dimension(const std::map<std::string, std::string>& base_defines, const std::string& name,
                                      std::vector<std::string> values, cuda_source::MacroRole role,
                                      std::optional<std::string> source_default) {
  for (const auto& d : dims_)
    if (d.name == name) return;
  TuningDimension dim;
  dim.name = name;
  dim.role = role;
  dim.source_default = source_default;
  dim.values = std::move(values);
  if (source_default) index_of(dim.values, *source_default);
  auto current = base_defines.find(name);
  if (current != base_defines.end()) dim.default_index = index_of(dim.values, current->second);
  else if (source_default) dim.default_index = index_of(dim.values, *source_default);
  else dim.default_index = 0;
  if (dim.values.size() > 1) dims_.push_back(std::move(dim));
}

// Literal knobs of the launcher (block-size literals, const locals, dim3 shapes) and launch
// arguments whose value the config sets.
void TuningSpace::add_launcher_knob_dimensions(const config::KernelSpec& spec) {
  auto knobs = cuda_source::find_launcher_knobs(base_.source, spec.launcher, spec.source, spec_overload_score(spec));
  for (const auto& why : knobs.not_offered) spdlog::debug("builtin tuner: not a knob: {}", why);
  for (auto& knob : knobs.literals) add_literal_dimension(std::move(knob));
  for (auto& arg : knobs.arguments) {
    auto value = configured_value(spec, arg.param);
    if (!value) {
      spdlog::debug("builtin tuner: {} is not probed: no [[kernel.arg]] `{}` of role scalar or size with an "
                    "integer value",
                    arg.subject(), arg.param);
      continue;
    }
    cuda_source::TunableMacro as_macro{arg.param, *value, arg.line, cuda_source::MacroRole::block_size, {}};
    TuningDimension dim;
    dim.kind = TuningDimension::Kind::argument;
    dim.name = arg.param;
    dim.role = cuda_source::MacroRole::block_size;
    dim.values = cuda_source::sweep_values(as_macro);
    dim.default_index = index_of(dim.values, std::to_string(*value));
    dim.knob = argument_knobs_.size();
    dim.display = fmt::format("{} ({} in this config)", arg.subject(), *value);
    argument_knobs_.push_back(std::move(arg));
    argument_values_.push_back(*value);
    if (dim.values.size() > 1) dims_.push_back(std::move(dim));
  }
}

void TuningSpace::add_literal_dimension(cuda_source::LiteralKnob knob) {
  cuda_source::TunableMacro as_macro{knob.name, knob.value, knob.line, knob.role, {}};
  TuningDimension dim;
  dim.kind = TuningDimension::Kind::literal;
  dim.name = knob.name;
  dim.role = knob.role;
  dim.values = cuda_source::sweep_values(as_macro);
  dim.default_index = index_of(dim.values, std::to_string(knob.value));
  dim.knob = literal_knobs_.size();
  dim.display = knob.description();
  dim.group = knob.group;
  literal_knobs_.push_back(std::move(knob));
  if (dim.values.size() > 1) dims_.push_back(std::move(dim));
}

void TuningSpace::add_kernel_target_dimensions(const config::KernelSpec& spec) {
  auto knobs = kernel_target_knobs(base_.source, spec);
  for (const auto& why : knobs.not_offered) spdlog::debug("builtin tuner: not a knob: {}", why);
  for (auto& knob : knobs.literals) add_literal_dimension(std::move(knob));
  for (auto& probe : knobs.probes) {
    const char* axes[] = {"block_x", "block_y", "block_z"};
    cuda_source::TunableMacro as_macro{axes[probe.axis], probe.config_value, 0, cuda_source::MacroRole::block_size, {}};
    TuningDimension dim;
    dim.kind = TuningDimension::Kind::argument;
    dim.name = axes[probe.axis];
    dim.role = knobs.probes.size() > 1 ? cuda_source::MacroRole::block_dimension : cuda_source::MacroRole::block_size;
    dim.group = knobs.probes.size() > 1 ? "kernel target block" : "";
    dim.values = cuda_source::sweep_values(as_macro);
    dim.default_index = index_of(dim.values, std::to_string(probe.config_value));
    dim.knob = argument_knobs_.size() + launch_probes_.size();
    dim.display = fmt::format("{} ({} in this config)", probe.subject, probe.config_value);
    launch_probes_.push_back(std::move(probe));
    if (dim.values.size() > 1) dims_.push_back(std::move(dim));
  }
}

cuda_source::TextEdit TuningSpace::probe_edit(const TuningDimension& d, int64_t value) const {
  if (d.knob >= argument_knobs_.size())
    return launch_probes_[d.knob - argument_knobs_.size()].probe(base_.source, value);
  return argument_knobs_[d.knob].probe(value, argument_values_[d.knob]);
}

// __launch_bounds__, fast math and register caps: choices the base variant has not made already.
void TuningSpace::add_compiler_dimensions(const config::KernelSpec& spec, const TuningSpaceOptions& options) {
  // Not for a kernel target: the launch-bounds transform reads a launcher's launches.
  if (options.launch_bounds && !spec.is_global())
    if (auto bounded = cuda_source::add_launch_bounds(base_.source, spec.launcher)) {
      bounded_source_ = *bounded;
      dims_.push_back({TuningDimension::Kind::launch_bounds,
                       "__launch_bounds__",
                       cuda_source::MacroRole::other,
                       {"off", "on"},
                       0,
                       std::nullopt,
                       0,
                       "",
                       ""});
    }
  const auto& flags = base_.nvcc_flags;
  if (options.fast_math) {
    bool has = std::find(flags.begin(), flags.end(), "--use_fast_math") != flags.end();
    if (!has)
      dims_.push_back({TuningDimension::Kind::flags,
                       "nvcc flags",
                       cuda_source::MacroRole::other,
                       {"", "--use_fast_math"},
                       0,
                       std::nullopt,
                       0,
                       "",
                       ""});
  }
  if (options.registers >= 64) {
    auto caps = register_caps(options.registers);
    caps.insert(caps.begin(), "");
    bool has = std::any_of(flags.begin(), flags.end(),
                           [](const std::string& f) { return f.starts_with("-maxrregcount"); });
    if (!has && caps.size() > 1)
      dims_.push_back({TuningDimension::Kind::flags, kRegisterCapDimension, cuda_source::MacroRole::other, caps, 0,
                       std::nullopt, 0, "", ""});
  }
}

uint64_t TuningSpace::size() const {
  if (dims_.empty()) return 0;
  uint64_t n = 1;
  for (const auto& d : dims_) {
    if (n > std::numeric_limits<uint64_t>::max() / d.values.size()) return std::numeric_limits<uint64_t>::max();
    n *= d.values.size();
  }
  return n;
}

bool TuningSpace::valid(const TuningPoint& point) const {
  if (point.size() != dims_.size()) return false;
  if (point == default_point()) return true;
  // One block shape per group: the macros' dimensions form one, each dim3 of the source another.
  std::map<std::string, int64_t> shapes;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (point[i] >= dims_[i].values.size()) return false;
    if (!dims_[i].is_numeric_knob()) continue;
    int64_t v = as_int(dims_[i].values[point[i]], -1);
    if (dims_[i].role == cuda_source::MacroRole::block_size && (v < 1 || v > 1024)) return false;
    if (dims_[i].kind == TuningDimension::Kind::literal && !tied_block_fits(literal_knobs_[dims_[i].knob], v))
      return false;
    if (dims_[i].role == cuda_source::MacroRole::block_dimension) {
      if (v < 1) return false;
      auto [it, fresh] = shapes.emplace(dims_[i].group, 1);
      it->second *= v;
    }
  }
  for (const auto& [group, shape] : shapes)
    if (shape < 32 || shape > 1024) return false;
  return true;
}

TuningPoint TuningSpace::default_point() const {
  TuningPoint p;
  for (const auto& d : dims_) p.push_back(d.default_index);
  return p;
}

Variant TuningSpace::variant(const TuningPoint& point) const {
  Variant v = base_;
  v.defines.clear();
  for (const auto& d : base_.defines) {
    auto kv = split_define(d);
    bool swept = std::any_of(dims_.begin(), dims_.end(), [&](const TuningDimension& dim) {
      return dim.kind == TuningDimension::Kind::macro && dim.name == kv->first;
    });
    if (!swept) v.defines.push_back(d);
  }
  for (size_t i = 0; i < dims_.size(); ++i) {
    const auto& d = dims_[i];
    const std::string& value = d.values[point[i]];
    switch (d.kind) {
      case TuningDimension::Kind::macro:
        if (!d.source_default || value != *d.source_default) v.defines.push_back(d.name + "=" + value);
        break;
      case TuningDimension::Kind::flags:
        if (!value.empty()) v.nvcc_flags.push_back(value);
        break;
      case TuningDimension::Kind::launch_bounds:
      case TuningDimension::Kind::literal:
      case TuningDimension::Kind::argument: break;  // in the source, below
    }
  }
  v.source = source_of(point);
  if (v.source != base_.source) source_points_[v.source] = point;
  v.label = describe(point);
  return v;
}

std::string TuningSpace::source_of(const TuningPoint& point) const {
  std::vector<cuda_source::TextEdit> edits;
  bool bounds = false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const auto& d = dims_[i];
    const std::string& value = d.values[point[i]];
    if (d.kind == TuningDimension::Kind::launch_bounds) bounds = value == "on";
    if (d.kind == TuningDimension::Kind::literal)
      for (auto& e : literal_knobs_[d.knob].edits(as_int(value, literal_knobs_[d.knob].value))) edits.push_back(e);
    if (d.kind == TuningDimension::Kind::argument && point[i] != d.default_index)
      edits.push_back(probe_edit(d, as_int(value, 0)));
  }
  if (edits.empty()) return bounds ? bounded_source_ : base_.source;
  // Launch bounds after the edits: the bound must be the block size the edited launch uses.
  std::string source = cuda_source::apply_text_edits(base_.source, edits);
  if (bounds)
    if (auto bounded = cuda_source::add_launch_bounds(source, launcher_)) source = *bounded;
  return source;
}

bool TuningSpace::advisory(const TuningPoint& point) const {
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i].kind == TuningDimension::Kind::argument && point[i] != dims_[i].default_index) return true;
  return false;
}

std::optional<TuningPoint> TuningSpace::point_of(const Variant& variant) const {
  TuningPoint p = default_point();
  std::map<std::string, std::string> defines;
  for (const auto& d : variant.defines)
    if (auto kv = split_define(d)) defines[kv->first] = kv->second;
  std::vector<std::string> flags = variant.nvcc_flags;
  // The source-changing dimensions, read from the text: the base, the base with launch bounds,
  // or a source this space made.
  std::optional<TuningPoint> from_source;
  if (variant.source == base_.source) {
    from_source = default_point();
  } else if (auto it = source_points_.find(variant.source); it != source_points_.end()) {
    from_source = it->second;
  } else if (!bounded_source_.empty() && variant.source == bounded_source_) {
    from_source = default_point();
    for (size_t i = 0; i < dims_.size(); ++i)
      if (dims_[i].kind == TuningDimension::Kind::launch_bounds) (*from_source)[i] = 1;
  }
  if (!from_source) return std::nullopt;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const auto& d = dims_[i];
    if (d.kind == TuningDimension::Kind::macro) {
      auto it = defines.find(d.name);
      std::optional<std::string> value = it != defines.end() ? std::optional(it->second) : d.source_default;
      if (it != defines.end()) defines.erase(it);
      if (!value) return std::nullopt;
      auto at = std::find(d.values.begin(), d.values.end(), *value);
      if (at == d.values.end()) return std::nullopt;
      p[i] = static_cast<size_t>(at - d.values.begin());
    } else if (d.kind != TuningDimension::Kind::flags) {
      p[i] = (*from_source)[i];
    } else {
      p[i] = 0;
      for (size_t k = 1; k < d.values.size(); ++k) {
        auto at = std::find(flags.begin(), flags.end(), d.values[k]);
        if (at != flags.end()) {
          p[i] = k;
          flags.erase(at);
        }
      }
    }
  }
  // Whatever is left must be what the base variant carries on its own.
  std::map<std::string, std::string> base_rest;
  for (const auto& d : base_.defines)
    if (auto kv = split_define(d)) base_rest[kv->first] = kv->second;
  for (const auto& d : dims_) base_rest.erase(d.name);
  if (defines != base_rest || flags != base_.nvcc_flags) return std::nullopt;
  return p;
}

std::string TuningSpace::describe(const TuningPoint& point) const {
  std::string out;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const auto& d = dims_[i];
    const std::string& value = d.values[point[i]];
    std::string part;
    if (d.kind == TuningDimension::Kind::macro || d.kind == TuningDimension::Kind::literal) part = d.name + "=" + value;
    else if (d.kind == TuningDimension::Kind::argument && point[i] != d.default_index)
      part = d.name + "=" + value + " (advisory probe)";
    else if (d.kind == TuningDimension::Kind::launch_bounds && value == "on") part = "__launch_bounds__";
    else if (d.kind == TuningDimension::Kind::flags && !value.empty()) part = value;
    if (!part.empty()) out += (out.empty() ? "" : ", ") + part;
  }
  return out.empty() ? "defaults" : out;
}

std::string TuningSpace::key(const TuningPoint& point) const {
  std::string k;
  for (size_t i : point) k += std::to_string(i) + ".";
  return k;
}

std::vector<TuningPoint> TuningSpace::neighbours(const TuningPoint& point) const {
  std::vector<TuningPoint> out;
  for (size_t i = 0; i < dims_.size(); ++i)
    for (int step : {-1, 1}) {
      if (step < 0 && point[i] == 0) continue;
      TuningPoint n = point;
      n[i] = static_cast<size_t>(static_cast<int64_t>(point[i]) + step);
      if (n[i] < dims_[i].values.size() && valid(n)) out.push_back(n);
    }
  return out;
}

std::optional<TuningPoint> TuningSpace::random_point(std::mt19937_64& rng) const {
  for (int attempt = 0; attempt < 200; ++attempt) {
    TuningPoint p;
    for (const auto& d : dims_) p.push_back(std::uniform_int_distribution<size_t>(0, d.values.size() - 1)(rng));
    if (valid(p)) return p;
  }
  return std::nullopt;
}

std::vector<TuningPoint> TuningSpace::enumerate(size_t limit) const {
  std::vector<TuningPoint> out;
  if (dims_.empty()) return out;
  TuningPoint p(dims_.size(), 0);
  for (;;) {
    if (valid(p)) {
      out.push_back(p);
      if (out.size() >= limit) return out;
    }
    size_t i = dims_.size();
    while (i > 0) {
      --i;
      if (++p[i] < dims_[i].values.size()) break;
      p[i] = 0;
      if (i == 0) return out;
    }
  }
}

std::vector<size_t> TuningSpace::changed_dimensions(const TuningPoint& point) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (point[i] != dims_[i].default_index) out.push_back(i);
  return out;
}

}  // namespace kb::search
