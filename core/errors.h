// One error vocabulary for the whole program, thrown by whoever detects the problem and caught once,
// in main(), which maps it to the exit code. A candidate's faults are never errors: they are
// verdicts (core/result_types.h), values the search reasons about.
//
// Every exception type of the program derives from one of these two, and nothing throws a bare
// std::runtime_error or std::logic_error (tests/core/error_vocabulary_test.cpp checks the tree):
// the type alone decides the exit code. A broken invariant of kernelbot's own is an Error too.
// This header lives in core/, which depends on nothing of ours, and needs no library: common/
// (the HTTP client and the diff included) and the judge, which links only core/, common/ and
// CUDA, throw these as every other layer does.
#pragma once

#include <stdexcept>

namespace kb {

// Exit code 1: the work failed (a tool, the GPU, the network, the repository).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 2: the command line or the config is wrong; the user must change what they typed or
// wrote. (A ConfigError is one, carrying every diagnostic of the file.)
struct UsageError : Error {
  using Error::Error;
};

}  // namespace kb
