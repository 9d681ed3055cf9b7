// Reads what a model wrote: the candidate translation unit out of a code reply, the list of
// ideas out of an idea reply. Models wrap code in fences with or without a language tag, put
// prose around it, show several blocks, or run out of tokens mid-block; each case either yields
// the code or a reason a person can act on.
#pragma once

#include <string>
#include <vector>

#include "search/types/proposer.h"

namespace kb::search {

// The candidate code found in a reply, or why there is none.
struct ExtractedCode {
  std::string code;
  std::string failure;      // empty when `code` is usable
  bool unreadable = false;  // the reply held no code at all: nothing of the idea was tried
  // The reply held code, but not as the whole translation unit (a diff, elided parts, or no
  // launcher): the model can be asked once more for the whole file.
  bool incomplete = false;
  bool ok() const { return failure.empty(); }
};

// The candidate in `reply`: the (last) fenced block that defines `launcher` (a body follows its
// parameter list), else unfenced code that does. A reply cut off at the token limit
// (finish_reason "length") is a failure, never half a kernel; so is a unified diff, and code that
// leaves parts out ("// ... rest of the file unchanged"): nvcc would only say that something is
// missing. `seed_source`, the code the model started from, keeps such a comment that was
// already there from counting as a gap.
ExtractedCode extract_code(const std::string& reply, const std::string& finish_reason, const std::string& launcher,
                           const std::string& seed_source = "");

// A model's content apart from its reasoning: <think>...</think> blocks taken out (an unclosed
// one holds everything after it; a </think> with no opening tag, as chat templates that open
// the block in the prompt leave it, ends reasoning that began with the reply).
struct ReasoningSplit {
  std::string answer;
  std::string reasoning;
};
ReasoningSplit split_reasoning(const std::string& content);

// Whether `code` defines the function `name` (unqualified): `name(...)` followed by `{`.
bool defines_function(const std::string& code, const std::string& name);

// The ideas found in a reply, or why there are none.
struct ParsedIdeas {
  std::vector<ProposedIdea> ideas;  // seed_id from an optional "seed" field
  std::string failure;
  bool ok() const { return failure.empty(); }
};

// A JSON list of {text, family, rationale[, seed]} (also {"ideas": [...]}, strings for ideas,
// "idea"/"description" for text), fenced or bare, with prose before or after. Families are
// normalized to the known ones.
ParsedIdeas parse_ideas(const std::string& reply);

}  // namespace kb::search
