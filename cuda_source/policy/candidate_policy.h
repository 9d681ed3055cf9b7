// The candidate source policy: host code a kernel replacement does not need, refused before nvcc
// sees a candidate. A candidate is native code a model wrote; the sandbox (docs/sandbox.md) is
// what contains it, and this check keeps the obvious attempts (reading files or the environment,
// starting processes, the network, loading libraries, system calls, host inline assembly,
// build-context macros, #includes of system headers) from ever being compiled, with a reason
// that names the rule, the line and the token, so an honest model can write it differently.
//
// It reads preprocessing tokens (preprocessing_tokens.h): comments and string contents do not
// trigger it, a refused name is refused inside a #define too, and what it cannot follow
// (token pasting `##`, computed #includes, `_Pragma` of an unknown pragma, a text it cannot
// tokenize) is refused rather than guessed at. The rules and what they allow are in
// docs/verdicts.md ("The candidate source policy").
//
// The original is the user's code and is never held to it: a candidate is refused only for
// findings the original does not have as many times (an original that calls getenv once in a
// setup function lets a candidate keep that call).
#pragma once

#include <string>
#include <vector>

#include "cuda_source/policy/candidate_includes.h"

namespace kb::cuda_source {

struct PolicyFinding {
  std::string rule;    // "file access", "environment", "process", "network", "dynamic loading"...
  std::string token;   // what was found: "fopen", "#include <unistd.h>", "\"/proc/self/environ\""
  int line = 0;        // 1-based, in the text checked
  std::string detail;  // optional: why this token falls under the rule

  // "line 12: `fopen` (file access)..." for a compile log and a verdict's reason.
  std::string describe() const;
};

// Every finding of `text`, in order of their lines.
std::vector<PolicyFinding> policy_findings(const std::string& text, const IncludeScope& includes);

// The findings of `candidate` beyond those of `original`: a finding (its rule and token) is
// excused as many times as the original has it. Empty: the candidate passes.
std::vector<PolicyFinding> candidate_policy_violations(const std::string& candidate, const std::string& original,
                                                       const IncludeScope& includes);

// The compile log of a refused candidate: a first line that says it was refused and why (the
// first violation), then every violation (at most `limit`), then how to comply.
std::string policy_refusal_log(const std::vector<PolicyFinding>& violations, size_t limit = 20);

}  // namespace kb::cuda_source
