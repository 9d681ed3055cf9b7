#include "profiler/evaluate/jobs/generalization_sizes.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <set>

#include "config/size_expression.h"
#include "profiler/evaluate/jobs/harness_job_builder.h"

namespace kb {
namespace {

// mt19937_64's sequence is fixed by the standard; the reductions below are our own, so a seed
// gives the same sets with every standard library.
class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  // Uniform in [lo, hi] (lo <= hi).
  int64_t between(int64_t lo, int64_t hi) {
    const auto span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span == 0 ? rng_() : rng_() % span);
  }

 private:
  std::mt19937_64 rng_;
};

struct NameRange {
  config::SizeRule rule;
  int64_t largest = 0;           // the largest configured value
  std::set<int64_t> configured;  // every configured value
};

// A value allowed by `rule` in [lo, hi], uniformly among the allowed ones; none if there is none.
std::optional<int64_t> allowed_between(const config::SizeRule& rule, int64_t lo, int64_t hi, Draw& draw) {
  const auto first = config::first_allowed_from(rule, lo);
  const auto last = config::last_allowed_up_to(rule, hi);
  if (!first || !last || *first > *last) return std::nullopt;
  const int64_t m = std::max<int64_t>(1, rule.multiple_of);
  return *first + draw.between(0, (*last - *first) / m) * m;
}

std::optional<int64_t> smallest(const NameRange& r) { return config::first_allowed_from(r.rule, 1); }

std::optional<int64_t> odd_value(const NameRange& r, Draw& draw) {
  if (r.rule.multiple_of % 2 == 0) return std::nullopt;  // every allowed value is even
  auto v = allowed_between(r.rule, 1, r.largest, draw);
  if (!v) return std::nullopt;
  if (*v % 2 == 0) {  // an odd multiple_of flips the parity
    const int64_t m = r.rule.multiple_of;
    if (config::size_allowed(r.rule, *v + m)) *v += m;
    else if (config::size_allowed(r.rule, *v - m)) *v -= m;
    else return std::nullopt;
  }
  return *v;
}

std::optional<int64_t> prime_value(const NameRange& r, Draw& draw) {
  if (r.rule.multiple_of != 1) return std::nullopt;  // a multiple of m > 1 is never prime (but m itself)
  const int64_t lo = std::max<int64_t>(r.rule.min, 2);
  const int64_t hi = r.rule.max > 0 ? std::min(r.rule.max, 2 * r.largest) : 2 * r.largest;
  if (lo > hi) return std::nullopt;
  const int64_t start = draw.between(lo, std::max(lo, std::min(hi, r.largest)));
  for (int64_t v = start; v <= hi; ++v)
    if (is_prime(v)) return v;
  for (int64_t v = start; v >= lo; --v)
    if (is_prime(v)) return v;
  return std::nullopt;
}

std::optional<int64_t> beyond_value(const NameRange& r, Draw& draw) {
  return allowed_between(r.rule, r.largest + 1, 2 * r.largest, draw);
}

// A value for a size name the set does not target: allowed, at most the largest configured one,
// and not a configured value where the rule leaves another.
int64_t varied_value(const NameRange& r, int64_t at_most, Draw& draw) {
  std::optional<int64_t> v;
  for (int attempt = 0; attempt < 8; ++attempt) {
    v = allowed_between(r.rule, 1, at_most, draw);
    if (!v) break;
    if (!r.configured.count(*v)) return *v;
  }
  return v ? *v : *smallest(r);
}

// Whether the literal `value` of an integer size or scalar fits `dtype` (a set beyond the largest
// configured one must not overflow an int32 size argument).
bool fits_integer(const std::string& value, DType dtype) {
  if (value.empty() || dtype_is_float(dtype)) return true;
  const long long v = std::stoll(value);
  switch (dtype) {
    case DType::int8: return v >= -128 && v <= 127;
    case DType::uint8: return v >= 0 && v <= 255;
    case DType::int32: return v >= INT32_MIN && v <= INT32_MAX;
    case DType::uint32: return v >= 0 && v <= static_cast<long long>(UINT32_MAX);
    default: return true;
  }
}

}  // namespace

bool is_prime(int64_t v) {
  if (v < 2) return false;
  if (v % 2 == 0) return v == 2;
  if (v % 3 == 0) return v == 3;
  for (int64_t d = 5; d <= v / d; d += 6)
    if (v % d == 0 || v % (d + 2) == 0) return false;
  return true;
}

std::vector<config::SizeSet> generalization_size_sets(const std::vector<config::SizeSet>& configured,
                                                      const std::map<std::string, config::SizeRule>& rules,
                                                      uint64_t seed, const SizeSetBytes& bytes) {
  std::vector<config::SizeSet> out;
  if (configured.empty() || configured.front().values.empty()) return out;
  std::map<std::string, NameRange> names;
  for (const auto& [name, value] : configured.front().values) {
    bool everywhere = true;
    for (const auto& s : configured) everywhere = everywhere && s.values.count(name);
    if (!everywhere) continue;
    NameRange r;
    if (auto it = rules.find(name); it != rules.end()) r.rule = it->second;
    for (const auto& s : configured) {
      r.largest = std::max(r.largest, s.values.at(name));
      r.configured.insert(s.values.at(name));
    }
    if (!smallest(r)) continue;  // the loader rejects such a rule; nothing to draw
    names[name] = r;
  }
  double largest_bytes = 0;
  for (const auto& s : configured) {
    try {
      largest_bytes = std::max(largest_bytes, bytes(s.values));
    } catch (const config::ExpressionError&) {
      // make_harness_job reports a configured set the spec cannot describe.
    }
  }
  const double byte_limit = 2 * largest_bytes;

  Draw draw(seed ^ 0x73697a6573ULL);
  std::set<std::map<std::string, int64_t>> seen;
  for (const auto& s : configured) seen.insert(s.values);
  auto fits = [&](const std::map<std::string, int64_t>& values) {
    try {
      return bytes(values) <= byte_limit;
    } catch (const config::ExpressionError&) {
      return false;
    }
  };
  for (const auto& [name, range] : names) {
    const std::optional<int64_t> targets[] = {smallest(range), odd_value(range, draw), prime_value(range, draw),
                                              beyond_value(range, draw)};
    for (const auto& target : targets) {
      if (!target || out.size() >= kMaxGeneralizationSets) continue;
      std::map<std::string, int64_t> values;
      for (const auto& [other, r] : names) values[other] = other == name ? *target : varied_value(r, r.largest, draw);
      // Over the memory bound: the other names shrink (halved, redrawn) before the set is dropped.
      for (int attempt = 0; attempt < 6 && !fits(values); ++attempt)
        for (auto& [other, v] : values)
          if (other != name) v = varied_value(names.at(other), std::max<int64_t>(1, v / 2), draw);
      if (!fits(values) || !seen.insert(values).second) continue;
      out.push_back({values});
    }
  }
  return out;
}

void add_generalization_sizes(HarnessJob& job, const config::Config& config, const config::KernelSpec& spec) {
  // The bytes of one set's buffers, evaluated as the job evaluates them (so a set whose counts,
  // values or ranges the spec cannot evaluate throws, and is not drawn).
  auto set_bytes = [&](const std::map<std::string, int64_t>& values) {
    config::KernelSpec one = spec;
    one.sizes = {config::SizeSet{values}};
    const HarnessJob j = make_harness_job(config, one);
    for (const auto& a : j.args)
      if (a.dtype && !a.values.empty() && !fits_integer(a.values[0], *a.dtype))
        throw config::ExpressionError("argument '" + a.name + "' = " + a.values[0] + " does not fit " +
                                      to_string(*a.dtype));
    double total = 0;
    for (const auto& a : j.args)
      if (a.dtype && !a.counts.empty())
        total += static_cast<double>(a.counts[0]) * static_cast<double>(dtype_size(*a.dtype));
    return total;
  };
  const auto sets = generalization_size_sets(spec.sizes, spec.size_rules, job.seed, set_bytes);
  if (sets.empty()) return;
  config::KernelSpec extra = spec;
  extra.sizes = sets;
  const HarnessJob g = make_harness_job(config, extra);
  job.size_labels.insert(job.size_labels.end(), g.size_labels.begin(), g.size_labels.end());
  job.flops.insert(job.flops.end(), g.flops.begin(), g.flops.end());
  job.bytes.insert(job.bytes.end(), g.bytes.begin(), g.bytes.end());
  for (size_t i = 0; i < job.args.size(); ++i) {
    auto& a = job.args[i];
    const auto& b = g.args[i];
    a.counts.insert(a.counts.end(), b.counts.begin(), b.counts.end());
    a.values.insert(a.values.end(), b.values.begin(), b.values.end());
    a.ranges.insert(a.ranges.end(), b.ranges.begin(), b.ranges.end());
  }
  job.verify_only_sizes += static_cast<int64_t>(sets.size());
}

}  // namespace kb
