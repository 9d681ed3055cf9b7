#include "search/llm/prompt_source.h"

#include <stdexcept>
#include <vector>

#include "common/text_cut.h"
#include "cuda_source/splicing/definition_splice.h"
#include "cuda_source/splicing/launcher_excerpt.h"

namespace kb::search {
namespace {

// About 4 characters a token, as the client estimates a prompt it was not told the size of.
constexpr size_t kCharsPerToken = 4;
// The share of the context one copy of the file may take.
constexpr int64_t kContextShare = 4;

std::string cut_to_prompt_size(const std::string& text) { return keep_head(text, kWholeSourceMaxChars); }

}  // namespace

bool too_long_for_prompt(size_t chars, int64_t context_tokens) {
  if (chars > kWholeSourceMaxChars) return true;
  return context_tokens > 0 && static_cast<int64_t>(chars / kCharsPerToken) > context_tokens / kContextShare;
}

std::optional<std::string> shorter_excerpt(const SourceView& view, const std::string& source) {
  auto excerpt = cuda_source::launcher_excerpt(source, view.launcher, view.path);
  if (!excerpt || excerpt->size() >= source.size()) return std::nullopt;
  return excerpt;
}

std::string shown_source(const SourceView& view, const std::string& source) {
  if (view.excerpts)
    if (auto excerpt = shorter_excerpt(view, source)) return cut_to_prompt_size(*excerpt);
  return cut_to_prompt_size(source);
}

std::string whole_source(const SourceView& view, const std::string& base, const std::string& code) {
  if (!view.excerpts) return code;
  cuda_source::DefinitionSplice splice = cuda_source::splice_definitions(view.path, base, view.launcher, code);
  std::vector<std::string> missing;  // a macro the file does not define stays the reply's own #define
  return cuda_source::apply_macro_defaults(splice.text, splice.macro_edits, missing);
}

}  // namespace kb::search
