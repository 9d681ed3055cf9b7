// The file's definitions that a splice leaves unused (definition_splice.h): a helper, constant or
// type that only the replaced definitions named, which nothing outside the file can reach
// (`static`, or in an anonymous namespace), goes with them; so does what only it named. Anything
// else stays: the user's other code is never deleted as a side effect, and a name still written
// anywhere in the spliced file (in any scope, any #if branch) keeps its definition.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cuda_source/splicing/reply_pieces.h"

namespace kb::cuda_source {

struct UnusedDefinitions {
  std::vector<Edit> removals;
  std::vector<std::string> names;
};

// `edits` are the splice's edits of `original`; `reply_keys` what the reply defines or repeats
// (ReplyPieces::reply_keys), which stays whether used or not.
UnusedDefinitions unused_definitions(const SpliceSide& original, const std::string& path,
                                     const std::vector<Edit>& edits, const std::set<std::string>& reply_keys);

}  // namespace kb::cuda_source
