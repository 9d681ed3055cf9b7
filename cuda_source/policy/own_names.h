// Which identifiers of a candidate name something the candidate declared itself, for the
// candidate source policy: `cudaEvent_t fork, join;` in a launcher, a parameter named `fork`, a
// member `s.fork` or `Graph::join`, an enumerator, and the uses of those in their scope, are not
// libc's fork(); `fork()`, `::fork`, `&fork` and `auto f = fork;` with no such declaration in
// scope are. A name's own declaration counts only where it cannot reach the libc symbol: inside a
// function, a class or a named namespace, or `static` at file scope. A variable at file scope
// with external linkage (`char getenv;`) is not the candidate's own: the dynamic loader binds
// the shared library's references to that name to libc's function of the same name, which
// therefore stays refused; so does a function declared outside a class (`extern "C" pid_t
// fork();`) and anything `extern` or `friend`.
//
// Not a parser: it follows braces and parentheses, reads `Type name` followed by `;`, `,`, `=`,
// `[`, `{` or `)` as a declaration, and gives up (every non-member name is then outside) where
// macros or conditional compilation could make the compiler's scopes differ from the text's
// (a #define with unbalanced braces or parentheses, an #if branch that leaves them unbalanced).
#pragma once

#include <vector>

#include "cuda_source/tokens/preprocessing_tokens.h"

namespace kb::cuda_source {

enum class NameBinding {
  outside,  // not an identifier the candidate declared: may be the library's
  own,      // a member, or a declaration of the candidate's own, or a use of one in scope
  // A variable's declaration that names the library's symbol: at file scope with external
  // linkage, or `extern` or `friend` anywhere.
  global_symbol,
};

// One binding per token (identifiers only are ever other than `outside`).
std::vector<NameBinding> name_bindings(const std::vector<PpToken>& tokens);

}  // namespace kb::cuda_source
