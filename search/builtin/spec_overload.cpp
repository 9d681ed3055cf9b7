#include "search/builtin/spec_overload.h"

#include <set>

#include "cuda_source/tokens/code_tokens.h"

namespace kb::search {
namespace {

// The identifiers of a type as written: "const float *" -> {const, float}.
std::set<std::string> type_words(const std::string& type) {
  std::set<std::string> out;
  for (const auto& t : cuda_source::tokenize_code(type))
    if (t.kind == cuda_source::CodeToken::identifier) out.insert(t.text);
  return out;
}

}  // namespace

cuda_source::OverloadScore spec_overload_score(const config::KernelSpec& spec) {
  return [&spec](const cuda_source::ScannedLauncher& l) {
    if (spec.args.size() > l.params.size() || spec.args.size() < cuda_source::required_params(l)) return 0;
    int score = 1000;
    for (size_t i = 0; i < spec.args.size(); ++i) {
      const auto words = type_words(l.params[i].type);
      const bool stream = spec.args[i].role == ArgRole::stream;
      const std::string wanted = stream ? "cudaStream_t" : dtype_cpp_type(spec.args[i].dtype);
      if (words.count(wanted)) ++score;
    }
    return score;
  };
}

}  // namespace kb::search
