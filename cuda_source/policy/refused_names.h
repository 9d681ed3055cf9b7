// The names the candidate source policy (candidate_policy.h) refuses: the libc and POSIX
// functions whose only use in a kernel's replacement is reaching the system, the build-context
// macros, and every spelling that reaches the same function (`__builtin_execl`, `__libc_fork`,
// `open64`, `__open_2`), also when a macro pastes two names into one (`fo ## rk`).
#pragma once

#include <string>
#include <vector>

namespace kb::cuda_source {

// The rule ("process", "file access", "environment", "build context", "system call"...) that
// refuses `name` wherever it appears, or empty.
std::string refused_name_rule(const std::string& name);

// The rule that refuses `name` where it is used as a function (`read(`, `&write`), or empty:
// common words that kernels use as names too (`bool write`, `int read`).
std::string refused_call_rule(const std::string& name);

// A name that two of `pieces` (the names a pasting macro's body and one invocation hold) paste
// into, `a ## b`, that either rule refuses; empty when none does. It does not try every pair: a
// pasted name reaches a refused one only as its decoration, the refused name and its suffixes
// (`__libc_` `fork` `64`), so each piece is completed by the few pieces that could follow it, and
// a candidate's text of any length is checked in time linear in it.
std::string pasted_refused_name(const std::vector<std::string>& pieces);

}  // namespace kb::cuda_source
